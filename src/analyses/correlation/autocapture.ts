import type { EventRecord } from "../../store/schema.ts";
import { parseElementsChain, type ElementJson } from "../../util/elements-chain.ts";
import { eventProperty } from "../../core/event-read.ts";
import { stringForm } from "../shared/property-operators.ts";

/**
 * Event property correlation with `$autocapture` among the events (PostHog FunnelCorrelationQueryRunner,
 * support_autocapture_elements): each correlated event then has one value, `elements_chain`, its `$event_type` and
 * its elements chain joined by `__~~__`, in place of its properties
 * (test_funnel_correlation.py::test_funnel_correlation_with_event_properties_autocapture).
 */
const AUTOCAPTURE = "$autocapture";
const EVENT_TYPE = "$event_type";
const CHAIN_KEY = "elements_chain";
const DIVIDER = "__~~__";

export interface CorrelatedEvent {
  event: string;
  properties: Record<string, unknown>;
  elements: ElementJson[];
}

/** Whether the event property correlation of these events reads elements chains. */
export const correlatesElements = (eventNames: ReadonlySet<string>): boolean => eventNames.has(AUTOCAPTURE);

/** An event's one (key, value) when elements are correlated; a missing `$event_type` is "", as PostHog reads it. */
export function elementsValue(event: EventRecord): [string, string] {
  const type = eventProperty(event, EVENT_TYPE);
  return [CHAIN_KEY, `${type === undefined || type === null ? "" : stringForm(type)}${DIVIDER}${event.elements_chain ?? ""}`];
}

/** A row's event: an `$autocapture` elements row carries its `$event_type` and its parsed elements. */
export function correlatedEvent(name: string, elements: boolean): CorrelatedEvent {
  const plain = { event: name, properties: {}, elements: [] };
  const [event, key, ...rest] = name.split("::");
  if (!elements || event !== AUTOCAPTURE || key !== CHAIN_KEY) return plain;
  const value = rest.join("::");
  const at = value.indexOf(DIVIDER);
  if (at < 0) return plain;
  return { event: name, properties: { [EVENT_TYPE]: value.slice(0, at) }, elements: parseElementsChain(value.slice(at + DIVIDER.length)) };
}

/**
 * The event filters of an `$autocapture` elements row (for its actors): the `$event_type` ("" = absent) and the
 * elements chain as an event_metadata column. Undefined for any other row.
 */
export function elementsFilters(event: string, key: string, value: string): Record<string, unknown>[] | undefined {
  const at = value.indexOf(DIVIDER);
  if (event !== AUTOCAPTURE || key !== CHAIN_KEY || at < 0) return undefined;
  const type = value.slice(0, at);
  return [
    type === "" ? { key: EVENT_TYPE, operator: "is_not_set", type: "event" } : { key: EVENT_TYPE, value: type, operator: "exact", type: "event" },
    { key: CHAIN_KEY, value: value.slice(at + DIVIDER.length), operator: "exact", type: "event_metadata" },
  ];
}
