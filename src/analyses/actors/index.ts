import type { EventList } from "../../store/schema.ts";
import type { AnalysisContext } from "../shared/context.ts";
import type { Loose } from "../shared/filter-read.ts";
import { correlationActors, funnelActors } from "./funnels.ts";
import type { DataPoint } from "./point.ts";
import { pathActors, retentionActors } from "./retention-paths.ts";
import { lifecycleActors, stickinessActors, trendActors } from "./trends.ts";
import type { ActorRow } from "./types.ts";

export { POINT_PARAMS, type DataPoint } from "./point.ts";
export type { ActorRow } from "./types.ts";

/**
 * Who is behind one number of an insight (reference: ingestion-persons-events §4.9). Each kind asks its analysis
 * for the per-data-point actor sets the insight counts, so the number of rows (or the sum of their values, where
 * a number counts more than actors) is the number the insight shows.
 */
export const ACTORS_OF = {
  TRENDS: trendActors,
  STICKINESS: stickinessActors,
  LIFECYCLE: lifecycleActors,
  FUNNELS: funnelActors,
  FUNNEL_CORRELATION: correlationActors,
  RETENTION: retentionActors,
  PATHS: pathActors,
} as const satisfies Record<string, (events: EventList, filter: Loose, ctx: AnalysisContext, point: DataPoint) => ActorRow[]>;

export type ActorsKind = keyof typeof ACTORS_OF;
