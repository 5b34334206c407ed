import { reject } from "../../core/analysis-errors.ts";
import { compileHogql, type HogqlEnv, type Value } from "../../hogql/evaluate.ts";
import { clickhouseString } from "../../hogql/values.ts";
import { QueryBudget } from "../../hogql/budget.ts";
import { parseHogqlExpr } from "../../hogql/parse.ts";
import type { EventRecord, PersonRecord } from "../../store/schema.ts";

/**
 * `breakdown_type: "hogql"` (reference: analytics §2.5): the breakdown is a HogQL expression evaluated per event
 * by the evaluator the events API uses (fields `event`, `timestamp`, `distinct_id`, `properties.*`,
 * `person.properties.*`, `person_id`; functions such as `concat`, `toString`, `if`) with HogQL's rules: a property
 * is text unless the project's definitions type it, a comparison is 1 or 0; dates written as HogQL's toString
 * writes them. A construct the evaluator does not support is a 400 naming `attr`.
 */
export function hogqlReader(text: string, attr: string, env: HogqlEnv): (event: EventRecord, person: PersonRecord | undefined) => unknown {
  if (text.trim() === "") throw reject.invalid(attr, "The HogQL expression is empty.");
  const compiled = compileHogql(parseHogqlExpr(text, attr), attr, env);
  const budget = new QueryBudget(attr, env.timeLimitMs);
  const timezone = env.timezone ?? "UTC";
  return (event, person) => {
    budget.tick();
    return plain(compiled({ event, person }), timezone);
  };
}

/**
 * The value as the real service's breakdown shows it, its `toString(expr)` (hogql_to_string in its trends
 * breakdown): a Date as YYYY-MM-DD, a DateTime as `YYYY-MM-DD hh:mm:ss[.ffffff]` in the project's zone, numbers as
 * ClickHouse writes a Float64 (`-0` included), Bool as true/false; a tuple as JSON.
 */
const plain = (v: Value, timezone: string): unknown => (v === null || v === undefined ? null : clickhouseString(v, timezone));
