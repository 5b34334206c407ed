import { QueryBudget } from "../../hogql/budget.ts";
import { compileHogql, type HogqlEnv } from "../../hogql/evaluate.ts";
import { eventFields } from "../../hogql/event-fields.ts";
import { parseHogqlExpr } from "../../hogql/parse.ts";
import type { EventRecord, PersonRecord } from "../../store/schema.ts";

/**
 * math "hogql" in stickiness: the actor of an event is the value of `math_hogql` (the real service aggregates by
 * it: test_stickiness_query_runner.py::test_hogql_aggregations). The events table is aliased `e` there, so
 * `e.properties.prop` reads as `properties.prop`. A null value is no actor; a construct the evaluator does not
 * support is a 400 naming `attr`.
 */
export function hogqlActorReader(text: string, attr: string, env: HogqlEnv): (event: EventRecord, person: PersonRecord | undefined) => string | undefined {
  const base = eventFields(env);
  const fields = (chain: string[], at: string) => base(chain[0] === "e" && chain.length > 1 ? chain.slice(1) : chain, at);
  const compiled = compileHogql(parseHogqlExpr(text, attr), attr, env, { fields });
  const budget = new QueryBudget(attr, env.timeLimitMs);
  return (event, person) => {
    budget.tick();
    const value = compiled({ event, person });
    return value === null || value === undefined ? undefined : `hogql:${value instanceof Date ? value.toISOString() : JSON.stringify(value)}`;
  };
}
