import type { EventList } from "../../store/schema.ts";
import type { ScanSnapshot } from "../../store/event-table.ts";
import type { CountJob, CountResult } from "../parallel/count-kernel.mjs";
import { startCount, type PendingCount } from "../parallel/pool.ts";
import { actorTableOf, type ActorTable } from "../shared/actor-table.ts";
import type { Actor } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { BREAKDOWN_NULL, breakdownText, type BreakdownDef, type PropertyPart } from "../shared/breakdown.ts";
import type { Buckets } from "../shared/buckets.ts";
import type { Windows } from "./maths.ts";
import type { EventMatcher } from "../shared/entity-match.ts";
import { hasSnapshots, type SnapshotColumns } from "../shared/event-read.ts";
import { ALWAYS } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import type { SeriesEntity } from "../shared/series.ts";
import type { TrendSpec } from "./filter.ts";

/**
 * The commonest trend series counted straight from the columns, over every core (../parallel/pool.ts): total
 * count and daily actives by persons, and the total count broken down by one event property, with no property
 * filter. Anything else (other maths, filters, actors lists) takes the general scan; both give the same numbers.
 */
/** Most bitset words a daily-actives count may allocate per partition (32 MiB): past it the general scan runs. */
const MAX_BITSET_WORDS = 8 << 20;

export interface CountSeries {
  entity: SeriesEntity;
  spec: Pick<TrendSpec, "cumulative" | "breakdown" | "groupIndex">;
  matcher: EventMatcher;
  buckets: Buckets;
  /** weekly_active / monthly_active: each bucket's trailing window (the math's plan). */
  windows?: Windows;
  ctx: Pick<AnalysisContext, "actorTable" | "personOf">;
  collectActors: boolean;
}

/**
 * The breakdown a column count can read, else undefined: one plain event property (value ids in the rows), or one
 * person property (read once per person, then per distinct id).
 */
function breakdownPart(def: BreakdownDef | undefined): PropertyPart | undefined {
  if (def?.kind !== "property" || def.multi || def.histogramBins !== undefined || def.parts.length !== 1) return undefined;
  const [part] = def.parts;
  if (!part || part.read) return undefined;
  return (part.source === "event" && !part.groupProperties) || part.source === "person" ? part : undefined;
}

/** What to count, or undefined when this series needs the general scan. */
function modeOf(s: CountSeries): CountJob["mode"] | undefined {
  if (s.collectActors || s.matcher.rest !== ALWAYS) return undefined;
  const math = s.entity.math ?? "total";
  if (!s.spec.breakdown) {
    if (math === "total") return "count";
    const actives = math === "dau" || ((math === "weekly_active" || math === "monthly_active") && s.windows !== undefined);
    return actives && !s.spec.cumulative && s.spec.groupIndex === undefined ? "unique" : undefined;
  }
  return math === "total" && s.spec.groupIndex === undefined && breakdownPart(s.spec.breakdown) ? "breakdown" : undefined;
}

/** The job over the snapshot's rows in the buckets' range, or undefined when the general scan must run. */
function jobOf(events: SnapshotColumns, snap: ScanSnapshot, s: Pick<CountSeries, "matcher" | "buckets" | "windows"> & { spec?: Pick<TrendSpec, "breakdown"> }, mode: CountJob["mode"]): CountJob | undefined {
  const edges = s.windows ? windowEdges(s.windows) : s.buckets.edges;
  const [start, end] = s.windows ? indexRange(events, edges[0]!, edges[edges.length - 1]! - 1) : indexRange(events, s.buckets.from, s.buckets.to);
  let wanted: Uint8Array | null = null;
  if (s.matcher.names !== null) {
    wanted = new Uint8Array(snap.names);
    for (const n of s.matcher.names) {
      const id = events.nameIdOf(n);
      if (id !== undefined && id < snap.names) wanted[id] = 1;
    }
  }
  const words = Math.ceil(snap.distinctIds / 32);
  if (mode === "unique" && words * (edges.length - 1) > MAX_BITSET_WORDS) return undefined;
  const part = breakdownPart(s.spec?.breakdown);
  const keyPos = mode === "breakdown" && part?.source === "event" ? events.keyPositions(part.key).slice(0, snap.shapes) : null;
  return { start: Math.min(start, snap.length), end: Math.min(end, snap.length), wanted, edges: Float64Array.from(edges), mode, keyPos, words, didCode: null };
}

/**
 * Starts counting the series (the workers begin at once), or undefined when it needs the general scan. `finish`
 * gives the counts per breakdown key ("" without a breakdown), keys as the general scan makes them.
 */
export function startColumnCounts(events: EventList, s: CountSeries): { pending: PendingCount; finish(): Map<string, number[]> } | undefined {
  const mode = modeOf(s);
  if (mode === undefined || !hasSnapshots(events)) return undefined;
  const snap = events.scanSnapshot();
  const job = jobOf(events, snap, s, mode);
  if (!job) return undefined;
  const part = mode === "breakdown" ? breakdownPart(s.spec.breakdown)! : undefined;
  const persons = part?.source === "person" ? personCodes(actorTableOf(s.ctx, events, snap.distinctIds), part) : undefined;
  if (persons) job.didCode = persons.didCode;
  const labelOf = persons ? (code: number) => persons.labels[code - 1]! : (code: number) => breakdownText(events.valueOfId(code - 1), part?.normalizeUrl ?? false);
  const pending = startCount(snap, job);
  return { pending, finish: () => keyedCounts(events, snap, s, pending.finish(), labelOf) };
}

/**
 * A person-property breakdown's code per distinct id (0: no value, else its label's index + 1), each person's
 * value read once; labels are the breakdown keys the general scan makes.
 */
function personCodes(table: ActorTable, part: PropertyPart): { didCode: Int32Array; labels: string[] } {
  const labels: string[] = [];
  const codeOfLabel = new Map<string, number>();
  const codeOfSlot = Int32Array.from(table.actors, (actor) => {
    const label = breakdownText(actor.person?.properties[part.key], part.normalizeUrl);
    if (label === null) return 0;
    let code = codeOfLabel.get(label);
    if (code === undefined) codeOfLabel.set(label, (code = labels.push(label)));
    return code;
  });
  const didCode = new Int32Array(new SharedArrayBuffer(4 * table.slotOfDid.length));
  table.slotOfDid.forEach((slot, d) => (didCode[d] = codeOfSlot[slot]!));
  return { didCode, labels };
}

/** Counts per key from the merged result: distinct-id bits become persons, value ids become breakdown keys. */
function keyedCounts(events: SnapshotColumns, snap: ScanSnapshot, s: CountSeries, result: CountResult, labelOf: (code: number) => string | null): Map<string, number[]> {
  if (result.mode === "count") return new Map([["", Array.from(result.counts)]]);
  if (result.mode === "unique") {
    const { slotOfDid } = actorTableOf(s.ctx, events, snap.distinctIds);
    return new Map([["", s.windows ? personsPerWindow(slotOfDid, result.bits, s.windows) : personsPerBucket(slotOfDid, result.bits, s.buckets.length)]]);
  }
  const byKey = new Map<string, number[]>();
  result.codes.forEach((code, j) => {
    const key = code === 0 ? BREAKDOWN_NULL : (labelOf(code) ?? BREAKDOWN_NULL);
    const row = result.rows[j]!;
    const sum = byKey.get(key);
    if (sum === undefined) byKey.set(key, Array.from(row));
    else row.forEach((v, b) => (sum[b]! += v));
  });
  return byKey;
}

/**
 * Per actor (persons, not groups) with activity, the buckets in which it performed the matcher's events, ascending:
 * the distinct-id bitsets of daily actives, counted over every core, then read per person. Undefined when the
 * general scan must run (a property condition, too many distinct ids for the bitsets).
 */
export function activeBucketsOfActors(events: EventList, matcher: EventMatcher, buckets: Buckets, ctx: CountSeries["ctx"]): Map<Actor, number[]> | undefined {
  if (matcher.rest !== ALWAYS || !hasSnapshots(events)) return undefined;
  const snap = events.scanSnapshot();
  const job = jobOf(events, snap, { matcher, buckets }, "unique");
  if (!job) return undefined;
  const result = startCount(snap, job).finish();
  if (result.mode !== "unique") return undefined;
  const table = actorTableOf(ctx, events, snap.distinctIds);
  const active: (number[] | undefined)[] = new Array(table.actors.length);
  forEachPersonBucket(table.slotOfDid, result.bits, buckets.length, (slot, b) => (active[slot] ??= []).push(b));
  const byActor = new Map<Actor, number[]>();
  active.forEach((list, slot) => list && byActor.set(table.actors[slot]!, list));
  return byActor;
}

/** The windows' starts and ends, sorted and once each: the intervals whose bitsets make up every window. */
const windowEdges = (w: Windows): number[] => [...new Set([...w.starts, ...w.ends])].sort((a, b) => a - b);

/** Distinct persons per trailing window, from the bitsets of the intervals between the windows' edges. */
function personsPerWindow(slotOfDid: Int32Array, bits: Int32Array, windows: Windows): number[] {
  const edges = windowEdges(windows);
  const spans = windows.starts.map((from, b): [number, number] => {
    const lo = edges.indexOf(from);
    let hi = lo;
    while (hi < edges.length - 1 && edges[hi]! < windows.ends[b]!) hi++;
    return [lo, hi];
  });
  const counts = new Array<number>(spans.length).fill(0);
  forEachPersonIn(slotOfDid, bits, edges.length - 1, spans, (_slot, w) => counts[w]!++);
  return counts;
}

/** Distinct persons per bucket from the distinct-id bitsets. */
function personsPerBucket(slotOfDid: Int32Array, bits: Int32Array, buckets: number): number[] {
  const counts = new Array<number>(buckets).fill(0);
  forEachPersonBucket(slotOfDid, bits, buckets, (_slot, b) => counts[b]!++);
  return counts;
}

/** Each (actor slot, bucket) pair once, from one bitset per bucket. */
const forEachPersonBucket = (slotOfDid: Int32Array, bits: Int32Array, buckets: number, visit: (slot: number, bucket: number) => void): void =>
  forEachPersonIn(slotOfDid, bits, buckets, Array.from({ length: buckets }, (_, b): [number, number] => [b, b + 1]), visit);

/**
 * Visits each (actor slot, span) pair once, a span being the bitsets [lo, hi) of `bitsets` equal ones: ids of one
 * merged person count once, as a stamp per actor slot replaces a set per span.
 */
function forEachPersonIn(slotOfDid: Int32Array, bits: Int32Array, bitsets: number, spans: readonly [number, number][], visit: (slot: number, span: number) => void): void {
  const words = bitsets === 0 ? 0 : bits.length / bitsets;
  let stamp: Int32Array = new Int32Array(1024);
  spans.forEach(([lo, hi], s) => {
    for (let e = lo; e < hi; e++) {
      for (let w = 0; w < words; w++) {
        for (let x = bits[e * words + w]!; x !== 0; x &= x - 1) {
          const slot = slotOfDid[w * 32 + (31 - Math.clz32(x & -x))]!;
          if (slot >= stamp.length) stamp = grown(stamp, slot);
          if (stamp[slot] === s + 1) continue;
          stamp[slot] = s + 1;
          visit(slot, s);
        }
      }
    }
  });
}

const grown = (a: Int32Array, atLeast: number): Int32Array => {
  const next = new Int32Array(Math.max(atLeast + 1, a.length * 2));
  next.set(a);
  return next;
};
