import { reject } from "../errors.ts";
import { compileHogql, Day, Interval, type HogqlEnv, type Value } from "../../hogql/evaluate.ts";
import { QueryBudget } from "../../hogql/budget.ts";
import { parseHogqlExpr } from "../../hogql/parse.ts";
import type { EventRecord, PersonRecord } from "../../store/schema.ts";

/**
 * `breakdown_type: "hogql"` (reference: analytics §2.5): the breakdown is a HogQL expression evaluated per event
 * by the evaluator the events API uses (fields `event`, `timestamp`, `distinct_id`, `properties.*`,
 * `person.properties.*`, `person_id`; functions such as `concat`, `toString`, `if`) with HogQL's rules: a property
 * is text unless the project's definitions type it, a comparison is 1 or 0. A date-time is written as ISO 8601,
 * a day as YYYY-MM-DD, an interval as seconds. A construct the evaluator does not support is a 400 naming `attr`.
 */
export function hogqlReader(text: string, attr: string, env: HogqlEnv): (event: EventRecord, person: PersonRecord | undefined) => unknown {
  if (text.trim() === "") throw reject.invalid(attr, "The HogQL expression is empty.");
  const compiled = compileHogql(parseHogqlExpr(text, attr), attr, env);
  const budget = new QueryBudget(attr);
  return (event, person) => {
    budget.tick();
    return plain(compiled({ event, person }));
  };
}

/** A day as HogQL's toString writes a Date (YYYY-MM-DD); an instant as ISO 8601; an interval as seconds. */
const plain = (v: Value): unknown => (v instanceof Day ? v.toISOString().slice(0, 10) : v instanceof Date ? v.toISOString() : v instanceof Interval ? v.ms / 1000 : v);
