import { QueryBudget } from "../../hogql/budget.ts";
import { compileHogql } from "../../hogql/evaluate.ts";
import { parseHogqlExpr } from "../../hogql/parse.ts";
import type { FilterContext } from "./context.ts";
import type { EventRecord, PersonRecord } from "../../store/schema.ts";

/**
 * A `type: "hogql"` property filter (reference: analytics §1.4): `key` is a HogQL condition evaluated per event by
 * the events API's evaluator, kept where it is true or a non-zero number, as ClickHouse's WHERE keeps rows
 * (test_stickiness_query_runner.py::test_property_filtering_hogql). A construct the evaluator does not support is a
 * 400 naming `attr`. Where there is no event (a persons list), it keeps everyone, as before.
 */
export function hogqlPredicate(key: string, attr: string, ctx: FilterContext): (event: EventRecord | undefined, person: PersonRecord | undefined) => boolean {
  const env = { now: ctx.now, timezone: ctx.timezone, propertyTypes: ctx.propertyTypes?.(), timeLimitMs: ctx.queryTimeLimitMs };
  const compiled = compileHogql(parseHogqlExpr(key, attr), attr, env);
  const budget = new QueryBudget(attr, env.timeLimitMs);
  return (event, person) => {
    if (event === undefined) return true;
    budget.tick();
    const value = compiled({ event, person });
    return value === true || (typeof value === "number" && value !== 0);
  };
}
