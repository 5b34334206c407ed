import { reject } from "../../core/analysis-errors.ts";
import type { EventList } from "../../store/schema.ts";
import { pathActorShares } from "../paths/index.ts";
import { readPathsFilter } from "../paths/filter.ts";
import { pathNodeOf, type PathNode, type PathPoint } from "../paths/items.ts";
import { inCell, retentionActivity, type RetentionGroup } from "../retention/index.ts";
import { readRetentionFilter, type RetentionSpec } from "../retention/filter.ts";
import type { ActorKey } from "../trends/maths.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { actorRows, asGroups, onceEach, type ActorRow } from "./types.ts";
import { sameValue, type DataPoint } from "./point.ts";

/**
 * The actors of retention cohort selected_interval (0-based, default 0), of breakdown_value when given, each with
 * the values of the cohort's row it appears in. PostHog's actors query reads the retention base query, before
 * cumulative retention fills the values up to the last return (retention_query_runner.py `to_actors_query`): the
 * appearances are the returns themselves, so they are read with `cumulative` off (after the filter's own checks).
 */
export function retentionActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  readRetentionFilter(filter, ctx);
  const { spec, groups } = retentionActivity(events, { ...filter, cumulative: false }, ctx);
  const cohort = readNumber(point, "selected_interval") ?? 0;
  if (!Number.isInteger(cohort) || cohort < 0 || cohort >= spec.periods) {
    throw reject.invalid("selected_interval", `selected_interval must be between 0 and ${spec.periods - 1}.`);
  }
  const asked = readString(point, "breakdown_value");
  const chosen = groups.filter((g) => asked === undefined || (g.breakdownValue !== undefined && sameValue(g.breakdownValue, asked)));
  const appearances = appearancesIn(chosen, spec, cohort);
  const rows = onceEach(appearances.keys()).map((row) => ({ ...row, appearances: [...appearances.get(row.key)!].sort((a, b) => a - b) }));
  return asGroups(rows, spec.groupIndex);
}

/** Per actor of cohort `cohort` (under any of the groups), the values of its row it counts in. */
function appearancesIn(groups: readonly RetentionGroup[], spec: RetentionSpec, cohort: number): Map<ActorKey, Set<number>> {
  const byActor = new Map<ActorKey, Set<number>>();
  for (const a of groups.flatMap((g) => g.activities)) {
    if (!inCell(a, cohort, 0)) continue;
    const values = byActor.get(a.key) ?? new Set<number>();
    byActor.set(a.key, values);
    for (let j = 0; j < spec.columns; j++) if (inCell(a, cohort, j)) values.add(j);
  }
  return byActor;
}

/**
 * The actors of a paths data point: paths through the edge path_start_key → path_end_key (or any edge leaving
 * the start / any node equal to the end when only one is given), or paths ending at path_dropoff_key. `value` is
 * the actor's number of such paths: summed over the actors it is the edge's value.
 */
export function pathActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  return asGroups(actorRows(pathActorShares(events, filter, ctx, pathPointOf(point))), readPathsFilter(filter).groupIndex);
}

/** The point's nodes: each key given, parsed. */
function pathPointOf(point: DataPoint): PathPoint<string> {
  const node = (key: string): PathNode<string> | null | undefined => {
    const value = readString(point, key);
    return value === undefined ? undefined : pathNodeOf(value);
  };
  const dropoff = node("path_dropoff_key");
  return dropoff !== undefined ? { dropoff } : { start: node("path_start_key"), end: node("path_end_key") };
}
