import { reject } from "../../core/analysis-errors.ts";
import type { EventList } from "../../store/schema.ts";
import { lifecycleStatuses, LIFECYCLE_STATUSES, type LifecycleStatus } from "../lifecycle/index.ts";
import { actorResolver } from "../shared/actors.ts";
import { upperBound } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { parseAbsolute } from "../../core/date-parse.ts";
import { compileGlobalFilter, NEVER } from "../shared/entity-match.ts";
import { readString, type Loose } from "../shared/filter-read.ts";
import { stickinessSeries } from "../stickiness/index.ts";
import { CRITERIA_OPERATORS, meetsCriteria, readStickinessOptions, type CriteriaOperator } from "../stickiness/options.ts";
import { readTrendFilter, trendWindow, type TrendSpec } from "../trends/filter.ts";
import type { SeriesEntity } from "../shared/series.ts";
import type { ActorKey } from "../trends/maths.ts";
import { columnTrendActors } from "../trends/column-actors.ts";
import { runSeries, seriesBuckets, seriesMatcher, type Row, type SeriesRun } from "../trends/run.ts";
import { askedBreakdown } from "./breakdown-asked.ts";
import { previousPointFilter } from "./trend-compare.ts";
import { pickSeries, requiredNumber, withPointSeries, type DataPoint } from "./point.ts";
import { actorRows, asGroups, onceEach, type ActorRow } from "./types.ts";

/** Display-only trend fields the persons of one series' buckets do not depend on. */
const NOT_FOR_ACTORS = { compare: false, compare_to: undefined, formula: undefined, formulas: undefined, formulaNodes: undefined, smoothing_intervals: undefined };

/**
 * The actors behind a trend data point (`/persons/trends/`): the series' run over the given range with actor
 * collection on, the row of `breakdown_value` (every row without one), every bucket of the range. `value` is the
 * actor's number of events counted there, for every math (test_trends_persons.py::test_trends_math_group_persons).
 */
export function trendActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  const trendFilter = { ...previousPointFilter(withPointSeries(filter, point), point, ctx, events.at(0)?.timestamp), ...NOT_FOR_ACTORS };
  const asked = readString(point, "breakdown_value");
  const breakdown = askedBreakdown(readTrendFilter(trendFilter, ctx), asked);
  const spec = breakdown.spec;
  const entity = pickSeries(spec.series, point);
  const window = trendWindow(trendFilter, spec, ctx, events.at(0)?.timestamp);
  const shared = { events, spec, ctx, actorOf: actorResolver(ctx), global: compileGlobalFilter(trendFilter, ctx), collectActors: true };
  const matcher = seriesMatcher(entity, shared);
  const columns = () => (breakdown.scanOnly ? undefined : columnTrendActors(events, { entity, spec, matcher, buckets: seriesBuckets(spec, window, ctx), ctx, collectActors: true }, asked));
  const counted = matcher === NEVER ? new Map() : columns();
  return asGroups(actorRows(counted ?? scannedActors(runSeries(entity, window, shared), asked, breakdown.isAsked)), groupTypeOf(entity, spec));
}

/** The actors of the general scan's run: the rows of the asked breakdown value (every row without one). */
function scannedActors(run: SeriesRun | undefined, asked: string | undefined, isAsked: (value: unknown) => boolean): Map<ActorKey, number | null> {
  const rows = (run?.rows ?? []).filter((row) => asked === undefined || (row.breakdown !== undefined && isAsked(row.breakdown.value)));
  return union(rows);
}

/** The group type the series counts (unique_group, else aggregation_group_type_index); undefined = persons. */
const groupTypeOf = (entity: SeriesEntity, spec: Pick<TrendSpec, "groupIndex">): number | undefined =>
  entity.math === "unique_group" ? entity.math_group_type_index : spec.groupIndex;

/** Each actor's events in the rows' buckets, whatever the math (PostHog's event_count is count() for every math). */
function union(rows: readonly Row[]): Map<ActorKey, number | null> {
  const shares = new Map<ActorKey, number | null>();
  for (const row of rows) {
    for (const bucket of row.actors ?? []) for (const [key, n] of bucket) shares.set(key, (shares.get(key) ?? 0) + n);
  }
  return shares;
}

/**
 * The actors of a stickiness position (`/persons/stickiness/`): active on exactly stickiness_days buckets, on that
 * many or more when cumulative, or as `stickiness_operator` (gte, lte, exact: StickinessActorsQuery's operator) says.
 */
export function stickinessActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  const days = requiredNumber(point, "stickiness_days");
  const meets = positionTest(readStickinessOptions(filter).cumulative ? "gte" : (readString(point, "stickiness_operator") ?? "exact"), days);
  const series = stickinessSeries(events, { ...withPointSeries(filter, point), compare: false }, ctx);
  const entity = pickSeries(series.map((s) => s.entity), point);
  const counts = series.find((s) => s.entity === entity)!.activeBuckets;
  const spec = readTrendFilter(withPointSeries(filter, point), ctx);
  return asGroups(onceEach([...counts].filter(([, k]) => meets(k)).map(([key]) => key)), groupTypeOf(entity, spec));
}

function positionTest(operator: string, days: number): (k: number) => boolean {
  if (!(CRITERIA_OPERATORS as readonly string[]).includes(operator)) throw reject.invalid("stickiness_operator", `"${operator}" is not an operator (gte, lte, exact).`);
  return (k) => meetsCriteria({ operator: operator as CriteriaOperator, value: days }, k);
}

/** The persons of a lifecycle status in the bucket holding target_date (`/persons/lifecycle/`). */
export function lifecycleActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  const status = readString(point, "lifecycle_type");
  if (!status) throw reject.required("lifecycle_type");
  if (!(LIFECYCLE_STATUSES as readonly string[]).includes(status)) throw reject.invalid("lifecycle_type", `"${status}" is not a lifecycle status.`);
  const rawDate = readString(point, "target_date");
  if (!rawDate) throw reject.required("target_date");
  const target = parseAbsolute(rawDate, ctx.timezone);
  if (!target) throw reject.invalid("target_date", `"${rawDate}" is not a date.`);
  const { buckets, persons, groupIndex } = lifecycleStatuses(events, withPointSeries(filter, point), ctx);
  const bucket = upperBound(buckets.edges, target.ms) - 1;
  if (bucket < 0 || bucket >= buckets.length) return [];
  return asGroups(onceEach(persons[status as LifecycleStatus][bucket]!), groupIndex);
}
