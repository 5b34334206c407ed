import { reject } from "../errors.ts";
import type { EventRecord, PersonRecord } from "../../store/schema.ts";
import { actorResolver } from "../shared/actors.ts";
import { bucketKeys, buildBuckets, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { resolveDateRange } from "../shared/date-range.ts";
import { compileEntityMatcher, compileGlobalFilter } from "../shared/entity-match.ts";
import { legacyLabel } from "../shared/labels.ts";
import { plus } from "../shared/local-time.ts";
import { forEachMatch } from "../shared/scan.ts";
import { seriesLabel, type SeriesEntity } from "../shared/series.ts";
import { readTrendFilter, type TrendFilter } from "../trends/filter.ts";
import { seriesAction } from "../trends/items.ts";

export const LIFECYCLE_STATUSES = ["new", "returning", "resurrecting", "dormant"] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

/** One of the four items of a lifecycle `result` (reference: analytics §4). */
export interface LifecycleItem {
  action: Record<string, unknown>;
  label: string;
  status: LifecycleStatus;
  count: number;
  data: number[];
  days: string[];
  labels: string[];
}

/** Per status and bucket of the range, the persons with that status there. */
export interface LifecycleStatuses {
  entity: SeriesEntity;
  buckets: Buckets;
  persons: Record<LifecycleStatus, Set<number>[]>;
}

/**
 * Lifecycle (reference: analytics §4, §11 item 13): per person and bucket, `new` (first active bucket is the one
 * holding the person's created_at), `returning` (active in the previous bucket too), `resurrecting` (active, not
 * in the previous bucket, not new) and `dormant` (active in the previous bucket only, counted negatively). The
 * bucket before the range is looked at, so the first bucket can be returning or dormant.
 */
export function computeLifecycle(events: readonly EventRecord[], filter: TrendFilter, ctx: AnalysisContext): LifecycleItem[] {
  const { entity, buckets, persons } = lifecycleStatuses(events, filter, ctx);
  const label = seriesLabel(entity, ctx);
  const days = bucketKeys(buckets, ctx.timezone);
  const labels = buckets.edges.slice(0, buckets.length).map((start) => legacyLabel(start, buckets.interval, ctx.timezone));
  return LIFECYCLE_STATUSES.map((status) => {
    // 0 − n, not −n: a dormant zero stays +0.
    const data = persons[status].map((set) => (status === "dormant" ? 0 - set.size : set.size));
    const action = seriesAction(entity, buckets, label, ctx);
    return { action, label: `${label} - ${status}`, status, count: data.reduce((a, b) => a + b, 0), data, days, labels };
  });
}

/** The persons behind every lifecycle number: the items count them, the actors endpoint lists them. */
export function lifecycleStatuses(events: readonly EventRecord[], filter: TrendFilter, ctx: AnalysisContext): LifecycleStatuses {
  const spec = readTrendFilter(filter, ctx);
  if (spec.series.length !== 1) throw reject.invalid("events", "Lifecycle insights need exactly one series.");
  const entity = spec.series[0]!;
  const window = resolveDateRange(filter, spec.interval, ctx, events[0]?.timestamp);
  const buckets = buildBuckets(window, ctx.timezone, ctx.weekStartDay);
  // Bucket 0 of `extended` is the one before the range; PostHog counts whole buckets here, from their start.
  const start = plus(buckets.edges[0]!, -1, spec.interval, ctx.timezone);
  const extended = buildBuckets({ from: start, to: buckets.edges[buckets.length]! - 1, interval: spec.interval }, ctx.timezone, ctx.weekStartDay);
  const activity = activeBuckets(events, extended, entity, filter, ctx);
  const persons = Object.fromEntries(LIFECYCLE_STATUSES.map((s) => [s, buckets.edges.slice(1).map(() => new Set<number>())])) as LifecycleStatuses["persons"];
  for (const { person, id, active } of activity.values()) {
    const created = person ? extended.indexOf(Date.parse(person.created_at)) : -1;
    classify(active, created, (status, bucket) => {
      if (bucket >= 1 && bucket <= buckets.length) persons[status][bucket - 1]!.add(id);
    });
  }
  return { entity, buckets, persons };
}

interface Activity {
  id: number;
  person: PersonRecord | undefined;
  /** Indexes of the extended buckets with activity, ascending, without repeats. */
  active: number[];
}

function activeBuckets(events: readonly EventRecord[], extended: Buckets, entity: SeriesEntity, filter: TrendFilter, ctx: AnalysisContext): Map<number, Activity> {
  const matcher = compileEntityMatcher(entity, ctx, compileGlobalFilter(filter, ctx), `${entity.type}__${entity.position}`);
  const byActor = new Map<number, Activity>();
  forEachMatch(events, extended, matcher, actorResolver(ctx), (event, actor) => {
    let activity = byActor.get(actor.id);
    if (!activity) byActor.set(actor.id, (activity = { id: actor.id, person: actor.person, active: [] }));
    const bucket = extended.indexOf(event.timestamp);
    if (bucket >= 0 && activity.active.at(-1) !== bucket) activity.active.push(bucket);
  });
  return byActor;
}

/**
 * The statuses of one person's active buckets, as PostHog's lifecycle query derives them: the first activity is
 * new when it is the bucket of created_at, else resurrecting (never returning); later ones are returning after an
 * active bucket, else resurrecting; the bucket after each last-of-a-run activity is dormant.
 */
export function classify(active: readonly number[], createdBucket: number, emit: (status: LifecycleStatus, bucket: number) => void): void {
  active.forEach((bucket, i) => {
    if (i === 0) emit(bucket === createdBucket ? "new" : "resurrecting", bucket);
    else emit(active[i - 1] === bucket - 1 ? "returning" : "resurrecting", bucket);
    if (active[i + 1] !== bucket + 1) emit("dormant", bucket + 1);
  });
}
