import type { EventList } from "../../store/schema.ts";
import type { KernelFilter } from "../parallel/count-kernel.ts";
import { startCount } from "../parallel/count-scan.ts";
import { actorResolver } from "../shared/actors.ts";
import { actorTableOf, type ActorTable } from "../shared/actor-table.ts";
import { makeBuckets, type Buckets } from "../shared/buckets.ts";
import { hasSnapshots } from "../shared/event-read.ts";
import { BREAKDOWN_OTHER, keyingFor, rankKeys } from "./breakdown-values.ts";
import { aggregationGroup, jobOf, startColumnCounts, type CountSeries } from "./column-counts.ts";
import type { TrendSpec } from "./filter.ts";
import type { ActorKey } from "./maths.ts";

/**
 * The actors behind a trend data point counted from the columns, over every core, with the event loop free when
 * the analysis runs off the main thread: each distinct id's events in the point's range (one bucket spanning the
 * series' buckets), added up per person (a person's value is its events). Served: `total` and `dau`, persons as actors, not cumulative; `total` also by one event or person property, the rows of the asked
 * breakdown value picked by the filter `rowsOfKeys` makes from the series' own column count (its top values and
 * "other" ranked as the trend ranks them). Anything else, or undefined here, takes the general scan
 * (../actors/trends.ts); both list the same actors.
 */
export interface ActorSeries extends CountSeries {
  spec: Pick<TrendSpec, "cumulative" | "breakdown" | "groupIndex" | "breakdownLimit" | "hideOther">;
}

export function columnTrendActors(events: EventList, s: ActorSeries, askedValue: string | undefined): Map<ActorKey, number | null> | undefined {
  const math = s.entity.math ?? "total";
  if (!hasSnapshots(events) || s.spec.cumulative || aggregationGroup(s) !== undefined) return undefined;
  if (math !== "total" && !(math === "dau" && !s.spec.breakdown)) return undefined;
  if (!s.spec.breakdown && askedValue !== undefined) return undefined;
  const rows = s.spec.breakdown ? breakdownRows(events, s, askedValue) : null;
  if (rows === undefined) return undefined;
  const snap = events.scanSnapshot();
  const job = jobOf(events, snap, { matcher: s.matcher, buckets: spanning(s.buckets), ctx: s.ctx }, "actorCounts");
  if (!job) return undefined;
  job.filter = bothOf(job.filter, rows);
  const result = startCount(snap, job).finish();
  if (result.mode !== "actorCounts") return undefined;
  return perPerson(actorTableOf(s.ctx, events, snap.distinctIds), result.counts);
}

/** One bucket from the first bucket's start to the last one's end, over the same counted range. */
const spanning = (b: Buckets): Buckets => makeBuckets(b.interval, [b.edges[0]!, b.edges[b.length]!], b.from, b.to);

const bothOf = (a: KernelFilter | null, b: KernelFilter | null): KernelFilter | null => (a === null ? b : b === null ? a : { kind: "and", of: [a, b] });

/**
 * The filter passing the rows of the breakdown rows the point asks for (every row when it names none), as the
 * trend shows them: its top values by count, and "other" for the rest unless hidden. Undefined when the breakdown
 * is not counted from the columns.
 */
function breakdownRows(events: EventList, s: ActorSeries, askedValue: string | undefined): KernelFilter | undefined {
  const counts = startColumnCounts(events, { ...s, collectActors: false });
  if (!counts) return undefined;
  const totals = new Map([...counts.finish()()].map(([key, data]) => [key, data.reduce((a, b) => a + b, 0)]));
  const keying = keyingFor(s.spec.breakdown!, { events, range: s.buckets, matcher: s.matcher, actorOf: actorResolver(s.ctx) });
  const { keep, other } = rankKeys(totals, keying, s.spec.breakdownLimit);
  const kept = new Set(keep);
  const rowOf = (key: string): string | undefined => (kept.has(key) ? key : other && !s.spec.hideOther ? BREAKDOWN_OTHER : undefined);
  return counts.rowsOfKeys((key) => {
    const row = rowOf(key);
    return row !== undefined && (askedValue === undefined || row === askedValue);
  });
}

/** Each person's events; persons without any left out. */
function perPerson(table: ActorTable, counts: Int32Array): Map<ActorKey, number | null> {
  const ofSlot = new Float64Array(table.actors.length);
  for (let d = 0; d < counts.length; d++) ofSlot[table.slotOfDid[d]!]! += counts[d]!;
  const shares = new Map<ActorKey, number | null>();
  ofSlot.forEach((n, slot) => n > 0 && shares.set(table.actors[slot]!.id, n));
  return shares;
}
