import type { EventList } from "../../store/schema.ts";
import { scanThreads, startTask } from "../parallel/pool.ts";
import { actorTableOf, partOfDid } from "../shared/actor-table.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { compileEntityMatcher, compileGlobalFilter, type EventMatcher } from "../shared/entity-match.ts";
import { hasSnapshots } from "../shared/event-read.ts";
import { ALWAYS } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import type { AttemptRules } from "./attempts.ts";
import type { FunnelSpec } from "./filter.ts";
import { mergeTrendTallies, type FunnelColumns, type FunnelPartJob } from "./partition.ts";
import type { TrendTally } from "./viz.ts";
import type { Buckets } from "../shared/buckets.ts";

/**
 * Conversion trends of the commonest funnels read straight from the columns, over every core: steps and exclusions
 * that are event names (no property condition), no global filter, persons as actors, no breakdown. The actors are
 * cut into parts (partition.ts) that the threads take in turn; each part tallies its actors' entrances per period.
 * Anything else takes journeys.ts; both give the same tally. (Steps and time to convert stay on journeys.ts:
 * per-person parts made them slower than its single pass, 351 against 197 ms at 10 M events.)
 */

/** Parts per thread: a thread the machine schedules late leaves its share to the others. */
const PARTS_PER_THREAD = 2;

/** The conversion trends tally over `periods`, or undefined when the funnel needs the general collection. */
export function columnFunnelTrend(events: EventList, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext, rules: AttemptRules, periods: Buckets): TrendTally | undefined {
  if (spec.breakdown || spec.groupIndex !== undefined || !hasSnapshots(events)) return undefined;
  if (compileGlobalFilter(spec.raw, ctx) !== ALWAYS) return undefined;
  const steps = spec.steps.slice(0, rules.stepCount).map((entity) => compileEntityMatcher(entity, ctx, ALWAYS, `${entity.type}__${entity.position}`));
  const exclusions = spec.exclusions.map((x, i) => compileEntityMatcher(x.entity, ctx, ALWAYS, `exclusions__${i}`));
  if (![...steps, ...exclusions].every((m) => m.rest === ALWAYS)) return undefined;
  const snap = events.scanSnapshot();
  const table = actorTableOf(ctx, events, snap.distinctIds);
  const [from, to] = indexRange(events, window.from, window.to);
  const [start, end] = [Math.min(from, snap.length), Math.min(to, snap.length)];
  const threads = scanThreads(end - start);
  const job: FunnelPartJob = {
    start,
    end,
    stepBits: bitsByName(steps, snap.names, events.nameOfId.bind(events)),
    exclusionBits: bitsByName(exclusions, snap.names, events.nameOfId.bind(events)),
    keepAll: spec.orderType === "strict",
    rules,
    periods: { interval: periods.interval, edges: periods.edges, from: periods.from, to: periods.to, fromStep: spec.fromStep, toStep: spec.toStep },
    parts: threads === 1 ? 1 : threads * PARTS_PER_THREAD,
    actors: table.actors.length,
  };
  const cols: FunnelColumns = { ts: snap.ts, name: snap.name, did: snap.did, slotOfDid: table.slotOfDid, partOfDid: partOfDid(table, job.parts) };
  const parts = startTask<FunnelColumns, FunnelPartJob, TrendTally[]>("funnel", cols, job, job.parts, end - start).finish();
  return mergeTrendTallies(parts.flat(), periods.length);
}
/** Per name id, bit k set when matcher k accepts the name (a matcher without names accepts every name). */
function bitsByName(matchers: readonly EventMatcher[], names: number, nameOf: (id: number) => string): Int32Array {
  const bits = new Int32Array(names);
  for (let id = 0; id < names; id++) {
    const name = nameOf(id);
    matchers.forEach((m, k) => {
      if (m.names === null || m.names.has(name)) bits[id]! |= 1 << k;
    });
  }
  return bits;
}
