import { reject } from "../../core/analysis-errors.ts";
import { readList, readString, type Loose } from "../shared/filter-read.ts";

/** Funnel correlation fields on top of the funnel filter (reference: analytics §6). */
export const CORRELATION_TYPES = ["events", "properties", "event_with_properties"] as const;
export type CorrelationType = (typeof CORRELATION_TYPES)[number];

export interface CorrelationSpec {
  type: CorrelationType;
  /** Person properties (`properties`); "$all" = every property the person has. */
  names: string[];
  excludeNames: ReadonlySet<string>;
  /** Events whose properties are correlated (`event_with_properties`). */
  eventNames: ReadonlySet<string>;
  excludeEventNames: ReadonlySet<string>;
  excludePropertyNames: ReadonlySet<string>;
}

const strings = (filter: Loose, key: string): string[] => readList(filter, key).map(String);

/**
 * The spec behind a row's actors: PostHog's FunnelCorrelationActorsQuery names no exclusions ("getting specific people
 * isn't affected by exclude_events", test_funnel_correlation.py::test_basic_funnel_correlation_with_events) and needs
 * no property names (test_funnel_correlation_actors.py::test_funnel_correlation_on_properties_with_recordings).
 */
export const ROW_ACTORS_SPEC: CorrelationSpec = {
  type: "events",
  names: [],
  excludeNames: new Set(),
  eventNames: new Set(),
  excludeEventNames: new Set(),
  excludePropertyNames: new Set(),
};

export function readCorrelationSpec(filter: Loose): CorrelationSpec {
  const value = readString(filter, "funnel_correlation_type") || "events";
  if (!(CORRELATION_TYPES as readonly string[]).includes(value)) throw reject.invalid("funnel_correlation_type", `"${value}" is not a valid correlation type.`);
  const spec: CorrelationSpec = {
    type: value as CorrelationType,
    names: strings(filter, "funnel_correlation_names"),
    excludeNames: new Set(strings(filter, "funnel_correlation_exclude_names")),
    eventNames: new Set(strings(filter, "funnel_correlation_event_names")),
    excludeEventNames: new Set(strings(filter, "funnel_correlation_exclude_event_names")),
    excludePropertyNames: new Set(strings(filter, "funnel_correlation_event_exclude_property_names")),
  };
  // PostHog: "Property Correlation expects at least one Property to run correlation on" (and likewise for events).
  if (spec.type === "properties" && spec.names.length === 0) throw reject.invalid("funnel_correlation_names", "Property correlation needs at least one property name.");
  if (spec.type === "event_with_properties" && spec.eventNames.size === 0) {
    throw reject.invalid("funnel_correlation_event_names", "Event property correlation needs at least one event name.");
  }
  return spec;
}
