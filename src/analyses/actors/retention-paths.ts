import { reject } from "../errors.ts";
import type { EventList } from "../../store/schema.ts";
import { nodeOf, pathsOf, type Path } from "../paths/index.ts";
import { inCell, retentionActivity } from "../retention/index.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { actorRows, asGroups, onceEach, type ActorKey, type ActorRow } from "./types.ts";
import { sameValue, type DataPoint } from "./point.ts";

/** The actors of retention cohort selected_interval (0-based, default 0), of breakdown_value when given. */
export function retentionActors(events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint): ActorRow[] {
  const { spec, groups } = retentionActivity(events, filter, ctx);
  const cohort = readNumber(point, "selected_interval") ?? 0;
  if (!Number.isInteger(cohort) || cohort < 0 || cohort >= spec.totalIntervals) {
    throw reject.invalid("selected_interval", `selected_interval must be between 0 and ${spec.totalIntervals - 1}.`);
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
  const { spec, paths } = pathsOf(events, filter, ctx);
  const start = readString(point, "path_start_key");
  const end = readString(point, "path_end_key");
  const dropoff = readString(point, "path_dropoff_key");
  const shares = new Map<ActorKey, number>();
  for (const path of paths) {
    const n = dropoff !== undefined ? (nodeOf(path, path.items.length - 1) === dropoff ? 1 : 0) : matchingNodes(path, start, end);
    if (n > 0) shares.set(path.actor, (shares.get(path.actor) ?? 0) + n);
  }
  return asGroups(actorRows(shares), spec.groupIndex);
}

/** PostHog's rows per path node: `last_path_key = start` and/or `path_key = end`; every node when neither is given. */
function matchingNodes(path: Path, start: string | undefined, end: string | undefined): number {
  let n = 0;
  for (let k = 0; k < path.items.length; k++) {
    if (start !== undefined && (k === 0 || nodeOf(path, k - 1) !== start)) continue;
    if (end !== undefined && nodeOf(path, k) !== end) continue;
    n++;
  }
  return n;
}
