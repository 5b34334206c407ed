import { reject } from "../errors.ts";
import { compileHogql, Interval, type Value } from "../../hogql/evaluate.ts";
import { QueryBudget } from "../../hogql/budget.ts";
import { parseHogqlExpr } from "../../hogql/parse.ts";
import type { EventRecord, PersonRecord } from "../../store/schema.ts";

/**
 * `breakdown_type: "hogql"` (reference: analytics §2.5): the breakdown is a HogQL expression evaluated per event
 * by the evaluator the events API uses (fields `event`, `timestamp`, `distinct_id`, `properties.*`,
 * `person.properties.*`, `person_id`; functions such as `concat`, `toString`, `if`). A date is written as ISO
 * 8601, an interval as seconds. A construct the evaluator does not support is a 400 naming `attr`.
 */
export function hogqlReader(text: string, attr: string, now: number): (event: EventRecord, person: PersonRecord | undefined) => unknown {
  if (text.trim() === "") throw reject.invalid(attr, "The HogQL expression is empty.");
  const compiled = compileHogql(parseHogqlExpr(text, attr), attr, now);
  const budget = new QueryBudget(attr);
  return (event, person) => {
    budget.tick();
    return plain(compiled({ event, person }));
  };
}

const plain = (v: Value): unknown => (v instanceof Date ? v.toISOString() : v instanceof Interval ? v.ms / 1000 : v);
