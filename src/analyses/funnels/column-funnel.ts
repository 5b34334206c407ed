import type { EventList } from "../../store/schema.ts";
import { scanThreads, startTask } from "../parallel/pool.ts";
import { actorTableOf, partOfDid } from "../shared/actor-table.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { compileEntityMatcher, compileGlobalFilter, type EventMatcher } from "../shared/entity-match.ts";
import { hasSnapshots } from "../shared/event-read.ts";
import { ALWAYS } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import type { Attempt, AttemptRules } from "./attempts.ts";
import type { FunnelSpec } from "./filter.ts";
import { mergeBestAttempts, mergeTrendTallies, type FunnelColumns, type FunnelPartJob, type PartAttempts, type PartResult } from "./partition.ts";
import type { TrendTally } from "./viz.ts";
import type { Buckets } from "../shared/buckets.ts";
import { breakdownText, type PropertyPart } from "../shared/breakdown.ts";

/**
 * The commonest funnels read straight from the columns, over every core: steps and exclusions that are event
 * names (no property condition), no global filter, persons as actors, no breakdown. The actors are cut into parts
 * (partition.ts) that the threads take in turn. Anything else takes journeys.ts; both give the same attempts.
 */

/** Parts per thread: a thread the machine schedules late leaves its share to the others. */
const PARTS_PER_THREAD = 2;

/**
 * The attempt counted per actor (with a breakdown, the key each counts under, as journeys' attribution makes it),
 * or the conversion trends tally over `periods`.
 */
type ColumnFunnel = { attempts: Attempt[]; keys?: string[] } | { tally: TrendTally };

/** The event property a first- or last-touch breakdown reads (one plain property), else undefined. */
function touchBreakdownPart(spec: FunnelSpec): PropertyPart | undefined {
  const def = spec.breakdown;
  if (def?.kind !== "property" || def.multi || def.histogramBins !== undefined || def.parts.length !== 1) return undefined;
  if (spec.attribution !== "first_touch" && spec.attribution !== "last_touch") return undefined;
  const [part] = def.parts;
  return part && part.source === "event" && !part.read && !part.groupProperties ? part : undefined;
}

/**
 * Per actor, in the order the single-threaded collection meets them, the attempt counted (`best`), or the
 * conversion trends tally over the periods; undefined when the funnel needs the general collection.
 */
export function columnFunnel(events: EventList, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext, rules: AttemptRules, periods?: Buckets): ColumnFunnel | undefined {
  // Time to convert ignores the breakdown; conversion trends by breakdown value take journeys.ts.
  const part = spec.viz === "steps" ? touchBreakdownPart(spec) : undefined;
  if ((spec.breakdown && spec.viz !== "time_to_convert" && !part) || spec.groupIndex !== undefined || !hasSnapshots(events)) return undefined;
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
    attempts: periods ? { interval: periods.interval, edges: periods.edges, from: periods.from, to: periods.to, fromStep: spec.fromStep, toStep: spec.toStep } : "best",
    parts: threads === 1 ? 1 : threads * PARTS_PER_THREAD,
    actors: table.actors.length,
    breakdown: part ? { keyPos: events.keyPositions(part.key).slice(0, snap.shapes), empty: Int32Array.from(events.emptyValueIds()), last: spec.attribution === "last_touch" } : null,
  };
  const cols: FunnelColumns = { ts: snap.ts, name: snap.name, did: snap.did, slotOfDid: table.slotOfDid, partOfDid: partOfDid(table, job.parts), ...(part ? { shape: snap.shape, voff: snap.voff, vals: snap.vals } : {}) };
  const parts = startTask<FunnelColumns, FunnelPartJob, [number, PartResult][]>("funnel", cols, job, job.parts, end - start).finish().flat().map(([, part]) => part);
  if (periods) return { tally: mergeTrendTallies(parts as TrendTally[], periods.length) };
  const merged = mergeBestAttempts(parts as PartAttempts[], rules.stepCount);
  const keyOf = (code: number) => (code === 0 ? "" : (breakdownText(events.valueOfId(code - 1), part!.normalizeUrl) ?? ""));
  return { attempts: merged.map((m) => m.attempt), ...(part ? { keys: merged.map((m) => keyOf(m.code)) } : {}) };
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
