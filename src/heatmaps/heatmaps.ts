/**
 * The heatmaps list (`GET …/heatmaps/`): the project's heatmap rows (derived from its stored events, src/heatmaps/rows.ts)
 * that pass the query's conditions, as points or, for `type=scrolldepth`, as scroll-depth buckets.
 */
import type { RowPredicate } from "../analyses/shared/property-filter.ts";
import { indexRange } from "../analyses/shared/scan.ts";
import { eventProperty } from "../core/event-read.ts";
import type { EventList, PersonRecord } from "../store/schema.ts";
import { foldSummary, heatmapPoints, pageOfPoints, rowFilter, scrollDepthBuckets, type FoldSummary, type HeatmapPoint, type ScrollDepthBucket } from "./compute.ts";
import type { HeatmapQuery } from "./query.ts";
import { heatmapRowsOf, mayHoldHeatmapData, type HeatmapRow } from "./rows.ts";

export type HeatmapAnswer = { results: HeatmapPoint[]; fold: FoldSummary; has_more: boolean } | { results: ScrollDepthBucket[] };

export interface HeatmapContext {
  personOf(distinctId: string): PersonRecord | undefined;
  /** The project's test-account filters, compiled; asked only when the query filters test accounts. */
  testAccounts(): RowPredicate;
  /** Members (person ids) of each cohort the query names. */
  cohortMembers: readonly ReadonlySet<number>[];
}

/** The heatmap rows of the events between `from` and `to` (inclusive). */
export function heatmapRowsBetween(events: EventList, from: number, to: number): HeatmapRow[] {
  const [start, end] = indexRange(events, from, to);
  const rows: HeatmapRow[] = [];
  for (let i = start; i < end; i++) {
    const event = events.at(i)!;
    if (mayHoldHeatmapData(event)) rows.push(...heatmapRowsOf(event));
  }
  return rows;
}

/**
 * The sessions the test-account filter keeps: those with an event (of any name) from date_from's day to the end of
 * date_to's that passes the project's test-account filters (the real query's `session_id IN (SELECT $session_id …)`).
 */
function sessionsOfRealUsers(events: EventList, query: HeatmapQuery, ctx: HeatmapContext): Set<string> {
  const passes = ctx.testAccounts();
  const sessions = new Set<string>();
  const [start, end] = indexRange(events, query.from, query.to - 1);
  for (let i = start; i < end; i++) {
    const event = events.at(i)!;
    const session = eventProperty(event, "$session_id");
    if (session === undefined || session === null || session === "") continue;
    if (passes(event, ctx.personOf(event.distinct_id))) sessions.add(String(session));
  }
  return sessions;
}

/** The answer to one heatmaps query over a project's events. */
export function computeHeatmap(events: EventList, query: HeatmapQuery, ctx: HeatmapContext): HeatmapAnswer {
  const sessions = query.filterTestAccounts ? sessionsOfRealUsers(events, query, ctx) : undefined;
  const inCohorts = (distinctId: string) => {
    if (ctx.cohortMembers.length === 0) return true;
    const person = ctx.personOf(distinctId);
    return person !== undefined && ctx.cohortMembers.every((members) => members.has(person.id));
  };
  const rows = heatmapRowsBetween(events, query.from, query.to).filter(rowFilter(query, sessions, inCohorts));
  if (query.type === "scrolldepth") return { results: scrollDepthBuckets(rows, query.aggregation) };
  const { results, has_more } = pageOfPoints(heatmapPoints(rows, query.aggregation), query.limit, query.offset);
  return { results, fold: foldSummary(rows), has_more };
}
