import { compileAggregate, type AggregatePlan } from "../../hogql/aggregate.ts";
import { parseHogqlExpr } from "../../hogql/parse.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { SeriesEntity } from "../shared/series.ts";

/** The series' `math_hogql` aggregate, compiled once per series run; errors name `events__0__math_hogql`. */
export function mathHogqlPlan(entity: SeriesEntity, ctx: Pick<AnalysisContext, "now" | "timezone" | "propertyTypes" | "queryTimeLimitMs">): AggregatePlan {
  const attr = `${entity.type}__${entity.position}__math_hogql`;
  return compileAggregate(parseHogqlExpr(String(entity.raw.math_hogql ?? ""), attr), attr, { now: ctx.now, timezone: ctx.timezone, propertyTypes: ctx.propertyTypes?.(), timeLimitMs: ctx.queryTimeLimitMs });
}
