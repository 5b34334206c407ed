import type { EventList } from "../../store/schema.ts";
import { actorResolver } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { previousPeriod, shiftedPeriod, withBounds, type QueryWindow } from "../shared/date-range.ts";
import { compileGlobalFilter } from "../shared/entity-match.ts";
import { readTrendFilter, trendWindow, type TrendFilter, type TrendSpec } from "./filter.ts";
import { formulaItems } from "./formula-items.ts";
import { filterEcho, seriesItems, type Period, type TrendResultItem } from "./items.ts";
import { runSeries, type RunShared } from "./run.ts";

export type { TrendFilter } from "./filter.ts";
export type { TrendResultItem } from "./items.ts";

/**
 * Trends (reference: analytics §2): per series (× breakdown value × compare period) one value per bucket
 * of the project-time-zone range, or one aggregated value for total-value displays; formulas replace the
 * series. `events` are all events of the project, sorted by timestamp.
 */
export function computeTrends(events: EventList, filter: TrendFilter, ctx: AnalysisContext): TrendResultItem[] {
  const spec = readTrendFilter(filter, ctx);
  const window = trendWindow(filter, spec, ctx, events.at(0)?.timestamp);
  const shared: RunShared = { events, spec, ctx, actorOf: actorResolver(ctx), global: compileGlobalFilter(filter, ctx) };
  const echo = filterEcho(spec, window, ctx);
  const periods = comparePeriods(window, spec, ctx);
  const perPeriod = periods.map((period) =>
    spec.series.flatMap((entity) => {
      const run = runSeries(entity, period.window, shared);
      return run ? [seriesItems(run, spec, ctx, period, echo)] : [];
    }),
  );
  if (spec.formulas.length === 0) return perPeriod.flat(2);
  return spec.formulas.flatMap((formula) => perPeriod.flatMap((perSeries) => formulaItems(formula, perSeries, spec)));
}

/** compare: the current period, then the previous one (or the compare_to shift) (reference §2.7). Stickiness too. */
export function comparePeriods(window: QueryWindow, spec: Pick<TrendSpec, "compare" | "compareTo">, ctx: AnalysisContext): Period[] {
  if (!spec.compare) return [{ window, compareLabel: undefined }];
  const previous = spec.compareTo ? shiftedPeriod(window, spec.compareTo, ctx) : previousPeriod(window, ctx.timezone);
  return [
    { window, compareLabel: "current" },
    { window: withBounds(window, previous), compareLabel: "previous" },
  ];
}
