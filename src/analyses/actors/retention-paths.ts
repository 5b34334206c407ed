import { reject } from "../errors.ts";
import type { EventList } from "../../store/schema.ts";
import { pathActorShares } from "../paths/index.ts";
import { readPathsFilter } from "../paths/filter.ts";
import { pathNodeOf, type PathNode, type PathPoint } from "../paths/items.ts";
import { inCell, retentionActivity } from "../retention/index.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { actorRows, asGroups, onceEach, type ActorRow } from "./types.ts";
import { sameValue, type DataPoint } from "./point.ts";

/** The actors of retention cohort selected_interval (0-based, default 0), of breakdown_value when given. */
export function retentionActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  const { spec, groups } = retentionActivity(events, filter, ctx);
  const cohort = readNumber(point, "selected_interval") ?? 0;
  if (!Number.isInteger(cohort) || cohort < 0 || cohort >= spec.periods) {
    throw reject.invalid("selected_interval", `selected_interval must be between 0 and ${spec.periods - 1}.`);
  }
  const asked = readString(point, "breakdown_value");
  const keys = new Set(
    groups
      .filter((g) => asked === undefined || (g.breakdownValue !== undefined && sameValue(g.breakdownValue, asked)))
      .flatMap((g) => g.activities.filter((a) => inCell(a, cohort, 0)).map((a) => a.key)),
  );
  return asGroups(onceEach(keys), spec.groupIndex);
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
