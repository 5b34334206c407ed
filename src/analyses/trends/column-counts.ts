import type { EventList } from "../../store/schema.ts";
import type { ScanSnapshot } from "../../store/columns/column-arrays.ts";
import type { CountJob, CountResult, KernelFilter, ValuesPart } from "../parallel/count-kernel.ts";
import { startCount, type PendingCount } from "../parallel/count-scan.ts";
import { actorTableOf, type ActorTable } from "../shared/actor-table.ts";
import { groupLookup } from "../shared/groups.ts";
import type { Actor } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { BREAKDOWN_NULL, breakdownText, type BreakdownDef, type PropertyPart } from "../shared/breakdown.ts";
import type { Buckets } from "../shared/buckets.ts";
import { MATHS, SESSION_PROPERTY, type Windows } from "./maths.ts";
import { kernelFilterOf, type TableSource } from "../shared/column-filter.ts";
import { numbersOfValues, sessionCodes } from "./value-tables.ts";
import { AGGREGATES } from "../shared/math.ts";
import type { EventMatcher } from "../shared/entity-match.ts";
import { hasSnapshots, type SnapshotColumns } from "../shared/event-read.ts";
import { filterTreeOf } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import { SESSION_PROPERTY_NAMES } from "../shared/session-properties.ts";
import type { SeriesEntity } from "../shared/series.ts";
import type { TrendSpec } from "./filter.ts";
import { personPropertyValue } from "../../core/person-property-read.ts";

/**
 * The commonest trend series counted straight from the columns, over every core (../parallel/start-task.ts): total
 * count, daily (weekly, monthly) actives by persons, unique sessions, events per person (*_count_per_actor), the
 * property maths (sum, avg, min, max, median, pNN), with or without a breakdown by one event or person property,
 * under conditions on event properties, person properties and cohorts (../shared/column-filter.ts). Anything else
 * (other maths, other filters, actors lists) takes the general scan; both give the same numbers.
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
  ctx: Pick<AnalysisContext, "actorTable" | "personOf"> & Partial<Pick<AnalysisContext, "groups">>;
  collectActors: boolean;
}

/** The group type whose groups are the actors (unique_group, aggregation_group_type_index), else undefined. */
export const aggregationGroup = (s: Pick<CountSeries, "entity" | "spec">): number | undefined =>
  s.entity.math === "unique_group" ? s.entity.math_group_type_index : s.spec.groupIndex;

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
  if (s.collectActors || filterTreeOf(s.matcher.rest) === undefined) return undefined;
  const math = s.entity.math ?? "total";
  // Groups as actors: an event in no group of the type drops out; unique counts the groups.
  if (aggregationGroup(s) !== undefined) {
    if (s.spec.breakdown) return undefined;
    if (math === "total") return "count";
    return (math === "dau" || math === "unique_group") && !s.spec.cumulative ? "unique" : undefined;
  }
  if (MATHS[math]?.kind === "property") {
    // The columns hold event properties: a math over the person's property (math_property_type) or a session's is the general scan's.
    if (s.entity.raw.math_property_type === "person_properties" || SESSION_PROPERTY_NAMES.includes(s.entity.math_property ?? "")) return undefined;
    return s.spec.groupIndex === undefined && (!s.spec.breakdown || breakdownPart(s.spec.breakdown)) ? "values" : undefined;
  }
  if (math === "unique_session") return !s.spec.breakdown && s.spec.groupIndex === undefined ? "unique" : undefined;
  if (MATHS[math]?.kind === "perActor") return !s.spec.breakdown && !s.spec.cumulative && s.spec.groupIndex === undefined ? "actorCounts" : undefined;
  if (!s.spec.breakdown) {
    if (math === "total") return "count";
    const actives = math === "dau" || ((math === "weekly_active" || math === "monthly_active") && s.windows !== undefined);
    return actives && !s.spec.cumulative && s.spec.groupIndex === undefined ? "unique" : undefined;
  }
  return math === "total" && s.spec.groupIndex === undefined && breakdownPart(s.spec.breakdown) ? "breakdown" : undefined;
}

/** What a job reads besides the rows: the series' conditions, and the property a math aggregates. */
interface JobInputs {
  matcher: EventMatcher;
  buckets: Buckets;
  windows?: Windows;
  spec?: Pick<TrendSpec, "breakdown">;
  mathProperty?: string;
  /** unique counts sessions (`$session_id`), not persons. */
  sessions?: boolean;
  /** Groups of this type are the actors (see aggregationGroup). */
  group?: number;
  ctx: CountSeries["ctx"];
}

/** The job over the snapshot's rows in the buckets' range, or undefined when the general scan must run. */
export function jobOf(events: SnapshotColumns, snap: ScanSnapshot, s: JobInputs, mode: CountJob["mode"]): CountJob | undefined {
  const edges = s.windows ? windowEdges(s.windows) : s.buckets.edges;
  const [from, to] = s.windows ? indexRange(events, edges[0]!, edges[edges.length - 1]! - 1) : indexRange(events, s.buckets.from, s.buckets.to);
  const [start, end] = [Math.min(from, snap.length), Math.min(to, snap.length)];
  const maxValues = end - start;
  const sessions = mode === "unique" && s.sessions ? sessionCodes(events, maxValues) : null;
  if (sessions === undefined) return undefined;
  const groups = s.group === undefined ? undefined : groupLookup(s.ctx.groups).idsOf(s.group, events);
  if (groups && groups.ids.length < snap.length) return undefined;
  // actorCounts keeps a counter per distinct id and bucket: a "word" each.
  const words = mode === "actorCounts" ? snap.distinctIds : Math.ceil((groups ? groups.keys.length : sessions ? sessions.codes : snap.distinctIds) / 32);
  if ((mode === "unique" || mode === "actorCounts") && words * (edges.length - 1) > MAX_BITSET_WORDS) return undefined;
  const source: TableSource = { events, shapes: snap.shapes, actors: () => actorTableOf(s.ctx, events, snap.distinctIds), maxValues };
  const filter = kernelFilterOf(s.matcher.rest, source);
  if (filter === undefined) return undefined;
  const num = mode === "values" ? numbersOfValues(events, maxValues) : null;
  if (num === undefined) return undefined;
  const part = breakdownPart(s.spec?.breakdown);
  const keyPos = sessions ? positions(events, snap, SESSION_PROPERTY) : (mode === "breakdown" || mode === "values") && part?.source === "event" ? positions(events, snap, part.key) : null;
  const mathPos = mode === "values" ? positions(events, snap, s.mathProperty ?? "") : null;
  return { start, end, wanted: wantedNames(events, snap, s.matcher), edges: Float64Array.from(edges), mode, keyPos, words, didCode: null, filter, mathPos, num, sessionOf: sessions?.codeOf ?? null, noSession: sessions?.none ?? 0, groupOf: groups?.ids ?? null };
}

/** 1 at the name ids the matcher takes; null when it takes every name. */
function wantedNames(events: SnapshotColumns, snap: ScanSnapshot, matcher: EventMatcher): Uint8Array | null {
  if (matcher.names === null) return null;
  const wanted = new Uint8Array(snap.names);
  for (const n of matcher.names) {
    const id = events.nameIdOf(n);
    if (id !== undefined && id < snap.names) wanted[id] = 1;
  }
  return wanted;
}

const positions = (events: SnapshotColumns, snap: ScanSnapshot, key: string): Int32Array => events.keyPositions(key).slice(0, snap.shapes);

/**
 * Each key's numbers per bucket, keys as the general scan makes them after `mapKey` (several keys mapped to one,
 * as into "other", are merged as that scan merges them).
 */
export type KeyedCounts = (mapKey?: (key: string) => string) => Map<string, number[]>;

export interface ColumnCounts {
  pending: PendingCount;
  finish(): KeyedCounts;
  /**
   * Once finished, with a breakdown: the row filter passing exactly the counted rows whose breakdown key `wanted`
   * takes, keys made as the counts make them (so a kernel counting those rows again counts one row of the answer).
   */
  rowsOfKeys(wanted: (key: string) => boolean): KernelFilter;
}

/** Starts counting the series (the workers begin at once), or undefined when it needs the general scan. */
export function startColumnCounts(events: EventList, s: CountSeries): ColumnCounts | undefined {
  const mode = modeOf(s);
  if (mode === undefined || !hasSnapshots(events)) return undefined;
  const snap = events.scanSnapshot();
  const job = jobOf(events, snap, { ...s, mathProperty: s.entity.math_property, sessions: s.entity.math === "unique_session", group: aggregationGroup(s) }, mode);
  if (!job) return undefined;
  const part = mode === "breakdown" || mode === "values" ? breakdownPart(s.spec.breakdown) : undefined;
  const persons = part?.source === "person" ? personCodes(actorTableOf(s.ctx, events, snap.distinctIds), part) : undefined;
  if (persons) job.didCode = persons.didCode;
  const labelOf = persons ? (code: number) => persons.labels[code - 1]! : (code: number) => breakdownText(events.valueOfId(code - 1), part?.normalizeUrl ?? false);
  const keyOf = (code: number): string => (code === 0 ? BREAKDOWN_NULL : (labelOf(code) ?? BREAKDOWN_NULL));
  const pending = startCount(snap, job);
  let finished: CountResult | undefined;
  return {
    pending,
    finish: () => {
      const result = (finished = pending.finish());
      if (result.mode === "values") return (mapKey = same) => keyedValues(result.parts, s.buckets.length, AGGREGATES[s.entity.math!]!, (code) => mapKey(keyOf(code)));
      const counts = keyedCounts(events, snap, s, result, keyOf);
      return (mapKey = same) => mergedKeys(counts, mapKey);
    },
    rowsOfKeys: (wanted) => {
      if (persons) return { kind: "did", accept: sharedBytes(persons.didCode.length, (d) => wanted(keyOf(persons.didCode[d]!))) };
      if (finished?.mode !== "breakdown" || job.keyPos === null) throw new Error("rowsOfKeys reads a finished breakdown count");
      const { codes } = finished;
      const accept = sharedBytes(codes.reduce((most, code) => Math.max(most, code), 0), () => false);
      for (const code of codes) if (code > 0) accept[code - 1] = wanted(keyOf(code)) ? 1 : 0;
      return { kind: "value", keyPos: job.keyPos, accept, absent: wanted(keyOf(0)) ? 1 : 0 };
    },
  };
}

/** Bytes in shared memory (a worker reads them in place), 1 where `at` holds. */
function sharedBytes(length: number, at: (i: number) => boolean): Uint8Array {
  const bytes = new Uint8Array(new SharedArrayBuffer(Math.max(1, length)));
  for (let i = 0; i < length; i++) bytes[i] = at(i) ? 1 : 0;
  return bytes;
}

const same = (key: string): string => key;

/** Counts of keys mapped to one key summed. */
function mergedKeys(counts: Iterable<[string, ArrayLike<number>]>, mapKey: (key: string) => string): Map<string, number[]> {
  const sums = new Map<string, number[]>();
  for (const [key, data] of counts) {
    const k = mapKey(key);
    const sum = sums.get(k);
    if (sum === undefined) sums.set(k, Array.from(data));
    else for (let b = 0; b < data.length; b++) sum[b]! += data[b]!;
  }
  return sums;
}

/**
 * A property math per key and bucket from the chunks' values: each key's list gathered in row order (chunks in
 * order, rows in order within them), then aggregated by the general scan's own function, so sums match to the bit.
 * A row without a number still makes its key (a zero row), as in that scan.
 */
function keyedValues(parts: ValuesPart[], buckets: number, aggregate: (values: readonly number[]) => number, keyOfCode: (code: number) => string): Map<string, number[]> {
  const lists = new Map<string, number[][]>();
  const listsOfKey = (key: string): number[][] => {
    let found = lists.get(key);
    if (!found) lists.set(key, (found = Array.from({ length: buckets }, () => [])));
    return found;
  };
  const listsOfCode = new Map<number, number[][]>();
  for (const { values, codes, starts, ends } of parts) {
    for (let b = 0; b < buckets; b++) {
      for (let i = starts[b]!; i < ends[b]!; i++) {
        const code = codes === null ? 0 : codes[i]!;
        let own = listsOfCode.get(code);
        if (!own) listsOfCode.set(code, (own = listsOfKey(codes === null ? "" : keyOfCode(code))));
        const v = values[i]!;
        if (!Number.isNaN(v)) own[b]!.push(v);
      }
    }
  }
  if (lists.size === 0) listsOfKey("");
  return new Map([...lists].map(([key, perBucket]) => [key, perBucket.map(aggregate)]));
}

/**
 * A person-property breakdown's code per distinct id (0: no value, else its label's index + 1), each person's
 * value read once; labels are the breakdown keys the general scan makes.
 */
function personCodes(table: ActorTable, part: PropertyPart): { didCode: Int32Array; labels: string[] } {
  const labels: string[] = [];
  const codeOfLabel = new Map<string, number>();
  const codeOfSlot = Int32Array.from(table.actors, (actor) => {
    const label = breakdownText(personPropertyValue(actor.person, part.key), part.normalizeUrl);
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
function keyedCounts(events: SnapshotColumns, snap: ScanSnapshot, s: CountSeries, result: CountResult, keyOf: (code: number) => string): Map<string, number[]> {
  if (result.mode === "count") return new Map([["", Array.from(result.counts)]]);
  if (result.mode === "unique" && (s.entity.math === "unique_session" || aggregationGroup(s) !== undefined)) return new Map([["", setBitsPerBucket(result.bits, s.buckets.length)]]);
  if (result.mode === "actorCounts") return new Map([["", perActorPerBucket(actorTableOf(s.ctx, events, snap.distinctIds), result.counts, s.buckets.length, AGGREGATES[MATHS[s.entity.math!]!.aggregate!]!)]]);
  if (result.mode === "unique") {
    const { slotOfDid } = actorTableOf(s.ctx, events, snap.distinctIds);
    return new Map([["", s.windows ? personsPerWindow(slotOfDid, result.bits, s.windows) : personsPerBucket(slotOfDid, result.bits, s.buckets.length)]]);
  }
  if (result.mode !== "breakdown") return new Map();
  // Codes whose labels are equal (values equal once normalized) are one key.
  return mergedKeys(Array.from(result.codes, (code, j): [string, Float64Array] => [keyOf(code), result.rows[j]!]), same);
}

/**
 * Per actor (persons, not groups) with activity, the buckets in which it performed the matcher's events, ascending:
 * the distinct-id bitsets of daily actives, counted over every core, then read per person. Undefined when the
 * general scan must run (a condition the kernel cannot test, too many distinct ids for the bitsets).
 */
export function activeBucketsOfActors(events: EventList, matcher: EventMatcher, buckets: Buckets, ctx: CountSeries["ctx"]): Map<Actor, number[]> | undefined {
  if (!hasSnapshots(events)) return undefined;
  const snap = events.scanSnapshot();
  const job = jobOf(events, snap, { matcher, buckets, ctx }, "unique");
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

/** Ids per bucket in one bitset per bucket (sessions: a code is one session). */
function setBitsPerBucket(bits: Int32Array, buckets: number): number[] {
  const words = buckets === 0 ? 0 : bits.length / buckets;
  return Array.from({ length: buckets }, (_, b) => {
    let n = 0;
    for (let w = b * words; w < (b + 1) * words; w++) for (let x = bits[w]!; x !== 0; x &= x - 1) n++;
    return n;
  });
}

/**
 * *_count_per_actor: per bucket, the events of each person (its distinct ids' counts added up), aggregated over the
 * persons with any. Counts are whole numbers, so the aggregate does not depend on the order the persons come in.
 */
function perActorPerBucket(table: ActorTable, counts: Int32Array, buckets: number, aggregate: (values: readonly number[]) => number): number[] {
  const dids = buckets === 0 ? 0 : counts.length / buckets;
  const ofSlot = new Float64Array(table.actors.length);
  return Array.from({ length: buckets }, (_, b) => {
    ofSlot.fill(0);
    for (let d = 0; d < dids; d++) ofSlot[table.slotOfDid[d]!]! += counts[b * dids + d]!;
    return aggregate(Array.from(ofSlot).filter((n) => n > 0));
  });
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
