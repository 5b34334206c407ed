import type { EventList } from "../../store/schema.ts";
import type { ScanSnapshot } from "../../store/event-table.ts";
import type { CountJob, CountResult } from "../parallel/count-kernel.mjs";
import { startCount, type PendingCount } from "../parallel/pool.ts";
import type { Actor, ActorOf } from "../shared/actors.ts";
import { BREAKDOWN_NULL, breakdownText, type BreakdownDef, type PropertyPart } from "../shared/breakdown.ts";
import type { Buckets } from "../shared/buckets.ts";
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
  actorOf: ActorOf;
  collectActors: boolean;
}

/** The event-property breakdown a column count can read (one plain event property), else undefined. */
function eventPropertyPart(def: BreakdownDef | undefined): PropertyPart | undefined {
  if (def?.kind !== "property" || def.multi || def.histogramBins !== undefined || def.parts.length !== 1) return undefined;
  const [part] = def.parts;
  return part && part.source === "event" && !part.read && !part.groupProperties ? part : undefined;
}

/** What to count, or undefined when this series needs the general scan. */
function modeOf(s: CountSeries): CountJob["mode"] | undefined {
  if (s.collectActors || s.matcher.rest !== ALWAYS) return undefined;
  const math = s.entity.math ?? "total";
  if (!s.spec.breakdown) {
    if (math === "total") return "count";
    return math === "dau" && !s.spec.cumulative && s.spec.groupIndex === undefined ? "unique" : undefined;
  }
  return math === "total" && eventPropertyPart(s.spec.breakdown) ? "breakdown" : undefined;
}

/** The job over the snapshot's rows in the buckets' range, or undefined when the general scan must run. */
function jobOf(events: SnapshotColumns, snap: ScanSnapshot, s: CountSeries, mode: CountJob["mode"]): CountJob | undefined {
  const [start, end] = indexRange(events, s.buckets.from, s.buckets.to);
  let wanted: Uint8Array | null = null;
  if (s.matcher.names !== null) {
    wanted = new Uint8Array(snap.names);
    for (const n of s.matcher.names) {
      const id = events.nameIdOf(n);
      if (id !== undefined && id < snap.names) wanted[id] = 1;
    }
  }
  const words = Math.ceil(snap.distinctIds / 32);
  if (mode === "unique" && words * s.buckets.length > MAX_BITSET_WORDS) return undefined;
  const part = eventPropertyPart(s.spec.breakdown);
  const keyPos = mode === "breakdown" ? events.keyPositions(part!.key).slice(0, snap.shapes) : null;
  return { start: Math.min(start, snap.length), end: Math.min(end, snap.length), wanted, edges: Float64Array.from(s.buckets.edges), mode, keyPos, words };
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
  const pending = startCount(snap, job);
  return { pending, finish: () => keyedCounts(events, s, pending.finish()) };
}

/** Counts per key from the merged result: distinct-id bits become persons, value ids become breakdown keys. */
function keyedCounts(events: SnapshotColumns, s: CountSeries, result: CountResult): Map<string, number[]> {
  if (result.mode === "count") return new Map([["", Array.from(result.counts)]]);
  if (result.mode === "unique") return new Map([["", personsPerBucket(events, s.actorOf, result.bits, s.buckets.length)]]);
  const normalize = eventPropertyPart(s.spec.breakdown)!.normalizeUrl;
  const byKey = new Map<string, number[]>();
  result.codes.forEach((code, j) => {
    const key = code === 0 ? BREAKDOWN_NULL : (breakdownText(events.valueOfId(code - 1), normalize) ?? BREAKDOWN_NULL);
    const row = result.rows[j]!;
    const sum = byKey.get(key);
    if (sum === undefined) byKey.set(key, Array.from(row));
    else row.forEach((v, b) => (sum[b]! += v));
  });
  return byKey;
}

/**
 * Distinct persons per bucket from the distinct-id bitsets: each distinct id is resolved once (ids of one merged
 * person count once), and a stamp per actor slot replaces a set per bucket.
 */
function personsPerBucket(events: SnapshotColumns, actorOf: ActorOf, bits: Int32Array, buckets: number): number[] {
  const words = buckets === 0 ? 0 : bits.length / buckets;
  const actors: (Actor | undefined)[] = new Array(words * 32).fill(undefined);
  let stamp: Int32Array = new Int32Array(1024);
  const counts = new Array<number>(buckets).fill(0);
  for (let b = 0; b < buckets; b++) {
    for (let w = 0; w < words; w++) {
      for (let x = bits[b * words + w]!; x !== 0; x &= x - 1) {
        const d = w * 32 + (31 - Math.clz32(x & -x));
        const slot = (actors[d] ??= actorOf(events.distinctIdOfId(d))).slot;
        if (slot >= stamp.length) stamp = grown(stamp, slot);
        if (stamp[slot] === b + 1) continue;
        stamp[slot] = b + 1;
        counts[b]!++;
      }
    }
  }
  return counts;
}

const grown = (a: Int32Array, atLeast: number): Int32Array => {
  const next = new Int32Array(Math.max(atLeast + 1, a.length * 2));
  next.set(a);
  return next;
};
