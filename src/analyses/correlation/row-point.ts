import { elementsFilters } from "./autocapture.ts";
import type { CorrelationSpec } from "./filter.ts";

type Point = Record<string, unknown>;

/**
 * The data point of a row for /persons/funnel/correlation/ (its success_people_url and failure_people_url): the
 * event, with its property value, or the property value; the actors listed are those the row counts.
 */
export function rowPoint(spec: CorrelationSpec, groupIndex: number | undefined, name: string, converted: boolean): Point {
  const flag = { funnel_correlation_person_converted: converted ? "true" : "false" };
  if (spec.type === "properties") {
    const [key = "", ...rest] = name.split("::");
    return { funnel_correlation_property_values: [valueFilter(key, rest.join("::"), groupIndex)], ...flag };
  }
  if (spec.type === "events") return { funnel_correlation_person_entity: { id: name, type: "events" }, ...flag };
  const [event = "", key = "", ...rest] = name.split("::");
  const value = rest.join("::");
  const properties = elementsFilters(event, key, value) ?? [{ key, value, operator: "exact", type: "event" }];
  return { funnel_correlation_person_entity: { id: event, type: "events", properties }, ...flag };
}

/** A person (or, aggregating by groups, group) property's value; "" stands for the property being absent too. */
function valueFilter(key: string, value: string, groupIndex: number | undefined): Point {
  const owner = groupIndex === undefined ? { type: "person" } : { type: "group", group_type_index: groupIndex };
  const exact = { key, value, operator: "exact", ...owner };
  return value === "" ? { type: "OR", values: [exact, { key, operator: "is_not_set", ...owner }] } : exact;
}
