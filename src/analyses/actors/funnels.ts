import { reject } from "../../core/analysis-errors.ts";
import type { EventList } from "../../store/schema.ts";
import { correlationPopulation, type FunnelEntrant } from "../correlation/index.ts";
import { ROW_ACTORS_SPEC } from "../correlation/filter.ts";
import { funnelPopulation, funnelTrendPopulation } from "../funnels/index.ts";
import { actorPeriods } from "../funnels/viz.ts";
import { reachesStep, type ReachedSteps } from "../funnels/attempts.ts";
import { readHogqlAggregation } from "../funnels/validation.ts";
import type { Buckets } from "../shared/buckets.ts";
import { parseAbsolute } from "../../core/date-parse.ts";
import { actorKey } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { compileEntityMatcher, matchesEvent } from "../shared/entity-match.ts";
import { decodeJsonish, readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { ALWAYS } from "../shared/property-filter.ts";
import { entityFrom } from "../shared/series.ts";
import { sameValue, type DataPoint } from "./point.ts";
import { asGroups, onceEach, type ActorKey, type ActorRow } from "./types.ts";

/**
 * The actors behind a funnel data point (`/persons/funnel/`, FunnelsActorsQuery). The actors listed are persons or
 * groups: a funnel counted by a HogQL expression's values (funnel_aggregate_by_hogql: a session id, say) lists none,
 * as the real service's actors query finds no person whose id is such a value. A steps funnel: funnel_step k
 * (1-based, default 1) = reached step k, −k = reached step k−1 but not k; funnel_custom_steps (1-based) = whose
 * furthest step is one of them, and wins over funnel_step. A conversion trend (funnel_viz_type trends with an
 * entrance_period_start): who entered in that period and converted, or with drop_off who did not. With a
 * breakdown, funnel_step_breakdown picks a value (every value without it).
 */
export function funnelActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  if (readString(filter, "funnel_viz_type") === "trends" && point.entrance_period_start !== undefined) return funnelTrendActors(events, filter, ctx, point);
  const population = funnelPopulation(events, filter, ctx);
  const reached = reachedFilter(point, population.spec.steps.length, population.spec.optional);
  if (population.spec.hogqlActor !== undefined) return [];
  const asked = askedBreakdown(point);
  const actors = new Set<ActorKey>();
  for (const [key, attempts] of population.byKey) {
    if (asked !== undefined && !matchesBreakdown(population.present(key)?.breakdown_value ?? "", asked)) continue;
    for (const [id, attempt] of attempts) if (reached(attempt)) actors.add(actorKey(population.actors.get(id)!));
  }
  return asGroups(onceEach(actors), population.spec.groupIndex);
}

/**
 * Which counted attempts a step actor list keeps. PostHog's messages for the steps that do not exist
 * (test_funnel_unordered_persons.py::test_invalid_steps). With optional steps (bit k of `optional`), step k lists
 * who went through it, and the drop-off at step k who went through the last required step before it but not k
 * (funnel_udf.py _get_funnel_person_step_condition).
 */
function reachedFilter(point: DataPoint, steps: number, optional: number): (attempt: ReachedSteps) => boolean {
  const custom = decodeJsonish(point.funnel_custom_steps);
  if (custom !== undefined && custom !== null && custom !== "") {
    const list = Array.isArray(custom) ? custom : [custom];
    if (list.length === 0 || !list.every((s) => Number.isInteger(Number(s)) && Number(s) >= 1 && Number(s) <= steps)) {
      throw reject.invalid("funnel_custom_steps", `funnel_custom_steps lists steps from 1 to ${steps}.`);
    }
    const levels = new Set(list.map(Number));
    return (attempt) => levels.has(attempt.level);
  }
  const step = point.funnel_step === undefined || point.funnel_step === null ? 1 : (readNumber(point, "funnel_step") ?? NaN);
  if (!Number.isInteger(step)) throw reject.invalid("funnel_step", "funnel_step: Input should be a valid integer.");
  if (step === 0) throw reject.invalid("funnel_step", "Funnel steps are 1-indexed, so step 0 doesn't exist.");
  if (step === -1) throw reject.invalid("funnel_step", "The first valid drop-off argument for funnelStep is -2.");
  if (Math.abs(step) > steps) throw reject.invalid("funnel_step", `funnel_step must be 1 … ${steps}, or −2 … −${steps} for those who dropped off before that step.`);
  if (step > 0) return (attempt) => reachesStep(attempt, step - 1);
  const target = -step - 1;
  let prior = target - 1;
  while (prior > 0 && (optional & (1 << prior)) !== 0) prior--;
  return (attempt) => reachesStep(attempt, prior) && !reachesStep(attempt, target);
}

/** funnel_step_breakdown as asked: a value (a JSON text in a URL), or a list of values (a multi-property breakdown); undefined when absent. */
const askedBreakdown = (point: DataPoint): unknown => (point.funnel_step_breakdown === null ? undefined : point.funnel_step_breakdown);

/**
 * A breakdown value asked for: the same value (a list as its JSON text), a list of one by its bare value, or a list
 * by the same list (test_funnel_persons.py::test_first_step_breakdowns_with_multi_property_breakdown asks ["Chrome", "95"]).
 */
function matchesBreakdown(value: unknown, asked: unknown): boolean {
  const text = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  if (!Array.isArray(asked)) return sameValue(value, text(asked)) || (Array.isArray(value) && value.length === 1 && sameValue(value[0], text(asked)));
  const values = Array.isArray(value) ? value : [value];
  return values.length === asked.length && values.every((v, i) => sameValue(v, text(asked[i])));
}

/**
 * The actors of one entrance period of a conversion trend (test_funnel_trends_persons.py): those the trend counts
 * as entering the period that starts at entrance_period_start (project time zone), converted unless drop_off.
 */
function funnelTrendActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  const population = funnelTrendPopulation(events, filter, ctx);
  if (population.spec.hogqlActor !== undefined) return [];
  const period = entrancePeriod(point, population.periods, ctx);
  const dropOff = String(point.drop_off ?? false).toLowerCase() === "true";
  const asked = askedBreakdown(point);
  const actors = new Set<ActorKey>();
  const periods = new Map<number, boolean>();
  for (const [key, byActor] of population.byKey) {
    if (asked !== undefined && !matchesBreakdown(population.present(key)?.breakdown_value ?? "", asked)) continue;
    for (const [id, starts] of byActor) {
      actorPeriods(starts, population.periods, population.spec, periods);
      const converted = periods.get(period);
      if (converted !== undefined && converted !== dropOff) actors.add(actorKey(population.actors.get(id)!));
    }
  }
  return asGroups(onceEach(actors), population.spec.groupIndex);
}

/**
 * The period that starts at entrance_period_start ("2021-05-01 00:00:00", in the project's zone); −1 (nobody) when
 * no period starts then, as PostHog compares the period start for equality.
 */
function entrancePeriod(point: DataPoint, periods: Buckets, ctx: AnalysisContext): number {
  const raw = readString(point, "entrance_period_start") ?? "";
  const at = parseAbsolute(raw, ctx.timezone)?.ms ?? Date.parse(raw);
  const period = periods.edges.indexOf(at);
  return period < periods.length ? period : -1;
}

/**
 * The actors behind a correlation row (`/persons/funnel/correlation/`): the converted (or dropped-off; either when
 * funnel_correlation_person_converted is absent) entrants who did funnel_correlation_person_entity inside their span,
 * or the entrants of the funnel narrowed by funnel_correlation_property_values (PostHog adds them to the funnel's own
 * properties, so a group property matches the event's group).
 */
export function correlationActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  if (readHogqlAggregation(filter) !== undefined) return [];
  const asked = readString(point, "funnel_correlation_person_converted")?.toLowerCase();
  const wanted = (e: FunnelEntrant) => asked === undefined || e.converted === (asked !== "false");
  const actors = new Set<ActorKey>();
  const values = decodeJsonish(point.funnel_correlation_property_values, "funnel_correlation_property_values");
  if (values !== undefined && values !== null && values !== "") {
    const narrowed = { ...filter, properties: [decodeJsonish(filter.properties, "properties") ?? [], values] };
    const population = correlationPopulation(events, narrowed, ctx, ROW_ACTORS_SPEC);
    for (const e of population.entrants.values()) if (wanted(e)) actors.add(actorKey(e.actor));
    return asGroups(onceEach(actors), population.groupIndex);
  }
  const entity = entityFrom(decodeJsonish(point.funnel_correlation_person_entity));
  if (!entity) throw reject.invalid("funnel_correlation_person_entity", "Name the correlated event (funnel_correlation_person_entity) or property values.");
  const population = correlationPopulation(events, filter, ctx, ROW_ACTORS_SPEC);
  const matcher = compileEntityMatcher(entity, ctx, ALWAYS, "funnel_correlation_person_entity");
  population.visitSpans((event, entrant) => {
    if (wanted(entrant) && matchesEvent(matcher, event, entrant.actor.person)) actors.add(actorKey(entrant.actor));
  });
  return asGroups(onceEach(actors), population.groupIndex);
}
