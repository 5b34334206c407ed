import { reject } from "../errors.ts";
import type { EventList } from "../../store/schema.ts";
import { correlationPopulation } from "../correlation/index.ts";
import { funnelPopulation } from "../funnels/index.ts";
import type { ReachedSteps } from "../funnels/attempts.ts";
import { actorKey } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { compileEntityMatcher, matchesEvent } from "../shared/entity-match.ts";
import { decodeJsonish, readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { ALWAYS, compileRowPredicate } from "../shared/property-filter.ts";
import { entityFrom } from "../shared/series.ts";
import { sameValue, type DataPoint } from "./point.ts";
import { asGroups, onceEach, type ActorKey, type ActorRow } from "./types.ts";

/**
 * The actors behind a funnel step (`/persons/funnel/`), from the attempts the steps funnel counts: funnel_step k
 * (1-based, default 1) = reached step k, −k = reached step k−1 but not k; funnel_step_breakdown picks a breakdown
 * value (every value without it).
 */
export function funnelActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  const population = funnelPopulation(events, filter, ctx);
  const steps = population.spec.steps.length;
  const step = readNumber(point, "funnel_step") ?? 1;
  if (!Number.isInteger(step) || step === 0 || step === -1 || Math.abs(step) > steps) {
    throw reject.invalid("funnel_step", `funnel_step must be 1 … ${steps}, or −2 … −${steps} for those who dropped off before that step.`);
  }
  const asked = readString(point, "funnel_step_breakdown");
  const keep = (a: ReachedSteps) => (step > 0 ? a.level >= step : a.level === -step - 1);
  const actors = new Set<ActorKey>();
  for (const [key, attempts] of population.byKey) {
    if (asked !== undefined && !matchesBreakdown(population.present(key)?.breakdown_value ?? "", asked)) continue;
    for (const [id, attempt] of attempts) if (keep(attempt)) actors.add(actorKey(population.actors.get(id)!));
  }
  return asGroups(onceEach(actors), population.spec.groupIndex);
}

/** A one-property breakdown value (a list of one) is also asked for by its bare value. */
const matchesBreakdown = (value: unknown, asked: string): boolean =>
  sameValue(value, asked) || (Array.isArray(value) && value.length === 1 && sameValue(value[0], asked));

/**
 * The actors behind a correlation row (`/persons/funnel/correlation/`): the converted (or dropped-off) entrants
 * who did funnel_correlation_person_entity inside their span, or whose person matches
 * funnel_correlation_property_values.
 */
export function correlationActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  const population = correlationPopulation(events, filter, ctx);
  const converted = readString(point, "funnel_correlation_person_converted")?.toLowerCase() !== "false";
  const actors = new Set<ActorKey>();
  const values = decodeJsonish(point.funnel_correlation_property_values);
  if (values !== undefined && values !== null && values !== "") {
    const matches = compileRowPredicate(values, ctx, "funnel_correlation_property_values");
    for (const e of population.entrants.values()) if (e.converted === converted && matches(undefined, e.actor.person)) actors.add(actorKey(e.actor));
    return asGroups(onceEach(actors), population.groupIndex);
  }
  const entity = entityFrom(decodeJsonish(point.funnel_correlation_person_entity));
  if (!entity) throw reject.invalid("funnel_correlation_person_entity", "Name the correlated event (funnel_correlation_person_entity) or property values.");
  const matcher = compileEntityMatcher(entity, ctx, ALWAYS, "funnel_correlation_person_entity");
  population.visitSpans((event, entrant) => {
    if (entrant.converted === converted && matchesEvent(matcher, event, entrant.actor.person)) actors.add(actorKey(entrant.actor));
  });
  return asGroups(onceEach(actors), population.groupIndex);
}
