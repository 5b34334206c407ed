import type { EventRecord } from "../../store/schema.ts";
import type { Actor } from "../shared/actors.ts";
import { eventProperty } from "../../core/event-read.ts";
import { personPropertyValue } from "../../core/person-property-read.ts";
import { numericForm } from "../shared/property-operators.ts";
import type { RetentionAggregation, RetentionSpec } from "./filter.ts";

/**
 * One actor's property values per period (PostHog retention_base_query_fixed.py, `_start_event_data` and
 * `_return_event_data`): summed over its target events, over its returning events, and over its returning events
 * after its first target event of the period; and that first target event's time.
 */
export interface PeriodValues {
  start: Float64Array;
  returned: Float64Array;
  afterStart: Float64Array;
  firstStart: Float64Array;
}

export const periodValues = (periods: number): PeriodValues => ({
  start: new Float64Array(periods),
  returned: new Float64Array(periods),
  afterStart: new Float64Array(periods),
  firstStart: new Float64Array(periods).fill(Infinity),
});

/** PostHog's `ifNull(toFloat(property), 0)`: the event's (or its person's current) property as a number, else 0. */
export function propertyValueReader(aggregation: RetentionAggregation): (event: EventRecord, actor: Actor) => number {
  const key = aggregation.property;
  const read = aggregation.propertyType === "person" ? (_event: EventRecord, actor: Actor) => personPropertyValue(actor.person, key) : (event: EventRecord) => eventProperty(event, key);
  return (event, actor) => {
    const value = numericForm(read(event, actor));
    return Number.isNaN(value) ? 0 : value;
  };
}

/** Adds one event's value in its period: as a returning event (after the period's first target event or not), as a target event. */
export function addPeriodValue(values: PeriodValues, period: number, timestamp: number, value: number, asTarget: boolean, asReturn: boolean): void {
  if (asReturn) {
    values.returned[period]! += value;
    if (timestamp > values.firstStart[period]!) values.afterStart[period]! += value;
  }
  if (asTarget) {
    values.start[period]! += value;
    if (timestamp < values.firstStart[period]!) values.firstStart[period] = timestamp;
  }
}

/**
 * Whether the returning events are another entity than the target's: only then do returns of the cohort's own period
 * count in value 0, those strictly after the period's first target event. PostHog compares id and type alone.
 */
export const returnsAreOtherEvents = (spec: RetentionSpec): boolean => spec.target.id !== spec.returning.id || spec.target.type !== spec.returning.type;

/** Cell (cohort i, value j) of one actor in it: its target events' values for j = 0 (and returns after them), its returns' j periods later. */
export function cellValue(values: PeriodValues, i: number, j: number, otherReturns: boolean): number {
  if (j === 0) return values.start[i]! + (otherReturns ? values.afterStart[i]! : 0);
  return i + j < values.returned.length ? values.returned[i + j]! : 0;
}

/** sum: the cell's actors' values added; avg: that sum over the number of actors (PostHog `sum(...) / COUNT(DISTINCT actor_id)`). */
export const aggregateCell = (type: RetentionAggregation["type"], sum: number, actors: number): number => (type === "sum" ? sum : actors === 0 ? 0 : sum / actors);

/** The values of actors merged into one (a breakdown's "other" row): added period by period. */
export function mergePeriodValues(into: PeriodValues, from: PeriodValues): void {
  for (let p = 0; p < into.start.length; p++) {
    into.start[p]! += from.start[p]!;
    into.returned[p]! += from.returned[p]!;
    into.afterStart[p]! += from.afterStart[p]!;
    into.firstStart[p] = Math.min(into.firstStart[p]!, from.firstStart[p]!);
  }
}
