import { reject } from "../../core/analysis-errors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { parseAbsolute, parseDate } from "../../core/date-parse.ts";
import { previousPeriod, shiftedPeriod, type QueryWindow } from "../shared/date-range.ts";
import { readString, type Loose } from "../shared/filter-read.ts";
import { fromWallClock, plus, startOf, toWallClock } from "../../core/time-zones.ts";
import { readTrendFilter, trendWindow, type TrendSpec } from "../trends/filter.ts";
import type { DataPoint } from "./point.ts";

/**
 * InsightActorsQuery `compare: "previous"` on a trend with compare on (the point carries `compare_value` and the raw
 * `day` as `time_frame`): the filter narrowed to the previous period's data point, as PostHog's
 * TrendsActorsQueryBuilder._date_where_expr picks it (posthog/hogql_queries/insights/trends/trends_actors_query_builder.py).
 * A total value asks for the whole previous period. Any other point is returned as it is.
 */
export function previousPointFilter(filter: Loose, point: DataPoint, ctx: AnalysisContext, earliest: number | undefined): Loose {
  if (readString(point, "compare_value") !== "previous") return filter;
  const spec = readTrendFilter(filter, ctx);
  const window = trendWindow(filter, spec, ctx, earliest);
  const previous = spec.compareTo ? shiftedPeriod(window, spec.compareTo, ctx) : previousPeriod(window, ctx.timezone);
  const day = readString(point, "time_frame");
  if (day === undefined || spec.totalValue) return exactly(filter, previous.from, previous.to);
  const start = previousBucketStart(dayStart(day, ctx), filter, spec, window, previous.from, ctx);
  const unit = spec.interval;
  return exactly(filter, start, plus(start, 1, unit, ctx.timezone) - 1);
}

const exactly = (filter: Loose, from: number, to: number): Loose => ({ ...filter, date_from: new Date(from).toISOString(), date_to: new Date(to).toISOString(), explicit_date: true });

function dayStart(day: string, ctx: AnalysisContext): number {
  const parsed = parseAbsolute(day, ctx.timezone);
  if (!parsed) throw reject.invalid("day", `"${day}" is not a date or date-time.`);
  return parsed.ms;
}

/**
 * The previous period's bucket of the current one starting at `current`: with compare_to, the same offset from the
 * shifted period's start; otherwise `current` moved back by date_from's own relative amount (`-7d`: 7 days, though
 * that period is 8 days long), then truncated to its day unless by hour or minute. An absolute date_from has no such
 * amount (PostHog fails there); the offset from the previous period's start is taken instead.
 */
function previousBucketStart(current: number, filter: Loose, spec: Pick<TrendSpec, "compareTo" | "interval">, window: QueryWindow, previousFrom: number, ctx: AnalysisContext): number {
  const sameOffset = () => fromWallClock(toWallClock(previousFrom, ctx.timezone) + toWallClock(current, ctx.timezone) - toWallClock(window.from, ctx.timezone), ctx.timezone);
  if (spec.compareTo || window.fromParsed.kind !== "relative") return sameOffset();
  const moved = parseDate(readString(filter, "date_from") ?? "-7d", current, ctx.timezone, ctx.weekStartDay);
  if (!moved) return sameOffset();
  return spec.interval === "hour" || spec.interval === "minute" ? moved.ms : startOf(moved.ms, "day", ctx.timezone);
}
