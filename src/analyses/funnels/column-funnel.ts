import type { EventList } from "../../store/schema.ts";
import { startRowTask, startTask } from "../parallel/start-task.ts";
import { scanThreads } from "../parallel/thread-count.ts";
import { funnelPartsTask, funnelRowsTask } from "./scan-tasks.ts";
import { actorTableOf, partOfDid, type ActorTable } from "../shared/actor-table.ts";
import type { Actor } from "../shared/actors.ts";
import { breakdownText, type PropertyPart } from "../shared/breakdown.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { QueryWindow } from "../shared/date-range.ts";
import { compileEntityMatcher, compileGlobalFilter, NEVER, type EventMatcher } from "../shared/entity-match.ts";
import { hasSnapshots, type SnapshotColumns } from "../shared/event-read.ts";
import { groupLookup } from "../shared/groups.ts";
import type { KernelFilter } from "../parallel/count-kernel.ts";
import { kernelFilterOf, type TableSource } from "../shared/column-filter.ts";
import { keptTable } from "../shared/kept-tables.ts";
import { ALWAYS } from "../shared/property-filter.ts";
import { indexRange } from "../shared/scan.ts";
import type { AttemptRules, ReachedSteps } from "./attempts.ts";
import { isFirstTimeStep } from "./first-time.ts";
import { keepsEveryEvent, type FunnelSpec } from "./filter.ts";
import {
  mergeBest,
  mergeTrendTallies,
  type FunnelColumns,
  type FunnelCondition,
  type FunnelPartJob,
  type FunnelRowsJob,
  type PartBest,
  type PartResult,
  type TrendPeriods,
} from "./partition.ts";
import type { TrendTally } from "./viz.ts";
import type { Buckets } from "../shared/buckets.ts";

/**
 * Funnels read straight from the columns, over every core (partition.ts): persons or groups as actors; steps,
 * exclusions and the funnel's own filter as event names and property conditions the kernel tests
 * (../shared/column-filter.ts); no breakdown but a first- or last-touch event property for the steps of persons.
 * Steps and time to convert get each actor's counted attempt, conversion trends a tally per period. Anything else
 * (actions, other breakdowns, steps planned on one thread) takes journeys.ts; both give the same attempts. Which
 * one runs is decided by the request and its plan, never again between the passes of a run.
 */

/** Parts of the actors per thread: a thread the machine schedules late leaves its share to the others. */
const PARTS_PER_THREAD = 2;

/** The conversion trends tally over `periods`, or undefined when the funnel needs the general collection. */
export function columnFunnelTrend(events: EventList, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext, rules: AttemptRules, periods: Buckets): TrendTally | undefined {
  const want: TrendPeriods = { interval: periods.interval, edges: periods.edges, from: periods.from, to: periods.to, fromStep: spec.fromStep, toStep: spec.toStep };
  const run = funnelOverParts(events, spec, window, ctx, rules, want, true);
  return run && mergeTrendTallies(run.parts as TrendTally[], periods.length);
}

/** The actors a funnel counts, read from the columns: the actor table, and per counted actor its slot and attempt. */
export interface CountedActors {
  table: ActorTable;
  slots: number[];
  attempts: ReachedSteps[];
  /** With a breakdown, each counted actor's key (as journeys' attribution makes it; "" for none). */
  keys?: string[];
  /** The actor of an event's distinct id, as the table resolves it (undefined: an id the snapshot did not have). */
  actorOf(distinctId: string): Actor | undefined;
}

/**
 * Each actor's counted attempt (steps, time to convert, the funnel's actors), in actor slot order (with groups as
 * actors, slots are the groups' dense ids and `table` is the persons'), or undefined when
 * the funnel needs the general collection or its plan has one thread (journeys.ts' single pass is then quicker).
 */
export function columnFunnelBest(events: EventList, spec: FunnelSpec, window: QueryWindow, ctx: AnalysisContext, rules: AttemptRules): CountedActors | undefined {
  const run = funnelOverParts(events, spec, window, ctx, rules, "best", false);
  if (!run || !hasSnapshots(events)) return undefined;
  const { table, touch } = run;
  const actorOf = (distinctId: string) => {
    const d = events.distinctIdIdOf(distinctId);
    return d === undefined ? undefined : table.actors[table.slotOfDid[d]!];
  };
  const { slots, codes, attempts } = mergeBest(run.parts as PartBest[], rules.stepCount);
  const keyOf = (code: number) => (code === 0 ? "" : (breakdownText(events.valueOfId(code - 1), touch!.normalizeUrl) ?? ""));
  return { table, slots, attempts, actorOf, ...(touch ? { keys: codes.map(keyOf) } : {}) };
}

/** The event property a first- or last-touch breakdown reads (one plain property), else undefined. */
function touchBreakdownPart(spec: FunnelSpec): PropertyPart | undefined {
  const def = spec.breakdown;
  if (def?.kind !== "property" || def.multi || def.histogramBins !== undefined || def.parts.length !== 1) return undefined;
  if (spec.attribution !== "first_touch" && spec.attribution !== "last_touch") return undefined;
  const [part] = def.parts;
  return part && part.source === "event" && !part.read && !part.groupProperties ? part : undefined;
}

/**
 * Both passes of partition.ts over the window's rows, cut for the run's threads. `onOneThread`: whether to run
 * when the plan has one thread; without it journeys.ts takes the funnel there (its single pass is quicker). The
 * run's threads are its plan's, fixed for every pass, so each pass of a request takes the same engine.
 */
function funnelOverParts(
  events: EventList,
  spec: FunnelSpec,
  window: QueryWindow,
  ctx: AnalysisContext,
  rules: AttemptRules,
  want: FunnelPartJob["want"],
  onOneThread: boolean,
): { table: ActorTable; parts: PartResult[]; touch: PropertyPart | undefined } | undefined {
  // Steps by a first- or last-touch event property run here; other breakdowns take journeys.ts.
  const touch = want === "best" ? touchBreakdownPart(spec) : undefined;
  // A HogQL expression's values as actors are read per event with its person: journeys.ts (hogql-actors.ts).
  if (spec.hogqlActor !== undefined) return undefined;
  // Groups as actors: their slots are the lookup's dense group ids (no breakdown: its keys are per person).
  const groups = spec.groupIndex === undefined ? undefined : groupLookup(ctx.groups).idsOf(spec.groupIndex, events);
  if ((spec.breakdown && (!touch || groups)) || !hasSnapshots(events)) return undefined;
  // First-time steps look at every event of a person, before the range too: journeys.ts (first-time.ts).
  if (spec.steps.some(isFirstTimeStep)) return undefined;
  const steps = spec.steps.slice(0, rules.stepCount).map((entity) => compileEntityMatcher(entity, ctx, ALWAYS, `${entity.type}__${entity.position}`));
  const exclusions = spec.exclusions.map((x, i) => compileEntityMatcher(x.entity, ctx, ALWAYS, `exclusions__${i}`));
  const snap = events.scanSnapshot();
  const [from, to] = indexRange(events, window.from, window.to);
  const [start, end] = [Math.min(from, snap.length), Math.min(to, snap.length)];
  const threads = scanThreads(end - start);
  if ((threads === 1 && !onOneThread) || (groups && groups.ids.length < snap.length)) return undefined;
  const table = actorTableOf(ctx, events, snap.distinctIds);
  const source: TableSource = { events, shapes: snap.shapes, actors: () => table, maxValues: end - start };
  const rowsOf = rowsJob(events, snap.names, steps, exclusions, kernelFilterOf(compileGlobalFilter(spec.raw, ctx), source), source);
  if (!rowsOf) return undefined;
  const parts = threads === 1 ? 1 : threads * PARTS_PER_THREAD;
  const cols: FunnelColumns = { ts: snap.ts, name: snap.name, did: snap.did, shape: snap.shape, valueStart: snap.valueStart, vals: snap.vals, slotOfDid: table.slotOfDid, partOfDid: partOfDid(table, parts), groupOf: groups?.ids ?? null };
  const none = touch ? noValueTable(events, touch, end - start) : null;
  if (touch && !none) return undefined;
  const breakdown = touch && none ? { keyPos: events.keyPositions(touch.key).slice(0, snap.shapes), none, last: spec.attribution === "last_touch" } : null;
  const rows: FunnelRowsJob = { ...rowsOf, keepAll: keepsEveryEvent(spec), parts };
  const chunks = startRowTask(funnelRowsTask, cols, rows, start, end)
    .finish()
    .flat()
    .sort((a, b) => a.chunk - b.chunk);
  const job: FunnelPartJob = { chunks, stepBits: rows.stepBits, exclusionBits: rows.exclusionBits, rules, parts, actors: groups ? groups.keys.length : table.actors.length, want, breakdown };
  return { table, touch, parts: startTask(funnelPartsTask, cols, job, parts, end - start).finish().flat() };
}

/** 1 at each value id that the breakdown's rule shows as no value; undefined past `maxValues` new values to judge. */
const noValueTable = (events: SnapshotColumns, part: PropertyPart, maxValues: number): Uint8Array | undefined =>
  keptTable(events, `breakdown-none:${part.normalizeUrl}`, maxValues, (n) => new Uint8Array(new SharedArrayBuffer(n)), (id) =>
    breakdownText(events.valueOfId(id), part.normalizeUrl) === null ? 1 : 0,
  );

/**
 * What pass 1 tests per row: the bits each name sets alone, the steps and exclusions with a property condition as
 * kernel filters, and the funnel's own filter; undefined when a condition needs the general collection.
 */
function rowsJob(
  events: SnapshotColumns,
  names: number,
  steps: readonly EventMatcher[],
  exclusions: readonly EventMatcher[],
  global: KernelFilter | null | undefined,
  source: TableSource,
): Pick<FunnelRowsJob, "stepBits" | "exclusionBits" | "conditions" | "global"> | undefined {
  if (global === undefined) return undefined;
  const nameOf = events.nameOfId.bind(events);
  const conditions: FunnelCondition[] = [];
  const plain = (matchers: readonly EventMatcher[], exclusion: boolean) =>
    matchers.map((m, k) => {
      const filter = m.rest === ALWAYS ? null : kernelFilterOf(m.rest, source);
      if (filter === null) return m;
      if (filter) conditions.push({ bit: 1 << k, exclusion, names: m.names && Uint8Array.from({ length: names }, (_, id) => (m.names!.has(nameOf(id)) ? 1 : 0)), filter });
      return filter === undefined ? undefined : NEVER;
    });
  const [stepNames, exclusionNames] = [plain(steps, false), plain(exclusions, true)];
  if ([...stepNames, ...exclusionNames].includes(undefined)) return undefined;
  return { stepBits: bitsByName(stepNames as EventMatcher[], names, nameOf), exclusionBits: bitsByName(exclusionNames as EventMatcher[], names, nameOf), conditions, global };
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
