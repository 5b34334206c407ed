import { reject } from "../../core/analysis-errors.ts";
import type { EventList } from "../../store/schema.ts";
import { actorResolver, type Actor } from "../shared/actors.ts";
import { bucketKeys, buildBuckets, type Buckets } from "../shared/buckets.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { resolveDateRange } from "../shared/date-range.ts";
import { compileEntityMatcher, compileGlobalFilter } from "../shared/entity-match.ts";
import { groupLookup } from "../shared/groups.ts";
import { legacyLabel } from "../shared/labels.ts";
import { plus } from "../../core/time-zones.ts";
import { forEachMatch } from "../shared/scan.ts";
import { seriesLabel, type SeriesEntity } from "../shared/series.ts";
import { readTrendFilter, type TrendFilter, type TrendSpec } from "../trends/filter.ts";
import type { ActorKey } from "../trends/maths.ts";
import { activeBucketsOfActors } from "../trends/column-counts.ts";
import { actorKeyOf } from "../trends/run.ts";
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

/** Per status and bucket of the range, the actors (person ids, or group keys) with that status there. */
export interface LifecycleStatuses {
  entity: SeriesEntity;
  buckets: Buckets;
  persons: Record<LifecycleStatus, Set<ActorKey>[]>;
  /** The group type the actors are groups of (aggregation_group_type_index); undefined = persons. */
  groupIndex: number | undefined;
}

/**
 * Lifecycle (reference: analytics §4, §11 item 13): per person and bucket, `new` (first active bucket is the one
 * holding the person's created_at), `returning` (active in the previous bucket too), `resurrecting` (active, not
 * in the previous bucket, not new) and `dormant` (active in the previous bucket only, counted negatively). The
 * bucket before the range is looked at, so the first bucket can be returning or dormant.
 */
export function computeLifecycle(events: EventList, filter: TrendFilter, ctx: AnalysisContext): LifecycleItem[] {
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

/**
 * The items as the query API answers them: each `action` is the "legacy response compatibility object" of PostHog's
 * LifecycleQueryRunner (lifecycle_query_runner.py), exactly the series' id (an action's as text), name, type, order 0
 * and math "total"; the legacy endpoint keeps its entity. The numbers are the same.
 */
export function lifecycleQueryItems(items: readonly LifecycleItem[]): LifecycleItem[] {
  return items.map((item) => ({ ...item, action: runnerAction(item.action) }));
}

function runnerAction(action: Record<string, unknown>): Record<string, unknown> {
  const id = action.type === "actions" ? String(action.id) : (action.id ?? null);
  return { id, name: action.name, type: action.type, order: 0, math: "total" };
}

/**
 * The persons behind every lifecycle number: the items count them, the actors endpoint lists them (in an order of
 * its own, so the columns may find them in any).
 */
export function lifecycleStatuses(events: EventList, filter: TrendFilter, ctx: AnalysisContext): LifecycleStatuses {
  const spec = readTrendFilter(filter, ctx);
  if (spec.series.length !== 1) throw reject.invalid("events", "Lifecycle insights need exactly one series.");
  const entity = spec.series[0]!;
  const window = resolveDateRange(filter, spec.interval, ctx, events.at(0)?.timestamp);
  const buckets = buildBuckets(window, ctx.timezone, ctx.weekStartDay);
  // Bucket 0 of `extended` is the one before the range; PostHog counts whole buckets here, from their start.
  const start = plus(buckets.edges[0]!, -1, spec.interval, ctx.timezone);
  const extended = buildBuckets({ from: start, to: buckets.edges[buckets.length]! - 1, interval: spec.interval }, ctx.timezone, ctx.weekStartDay);
  const activity = columnActivity(events, extended, entity, spec, filter, ctx) ?? activeBuckets(events, extended, entity, spec, filter, ctx);
  const persons = Object.fromEntries(LIFECYCLE_STATUSES.map((s) => [s, buckets.edges.slice(1).map(() => new Set<ActorKey>())])) as LifecycleStatuses["persons"];
  for (const { key, createdAt, active } of activity.values()) {
    const created = createdAt === undefined ? -1 : extended.indexOf(createdAt);
    classify(active, created, (status, bucket) => {
      if (bucket >= 1 && bucket <= buckets.length) persons[status][bucket - 1]!.add(key);
    });
  }
  return { entity, buckets, persons, groupIndex: spec.groupIndex };
}

interface Activity {
  key: ActorKey;
  /** The actor's creation (a person's created_at, a group's created_at), epoch ms; undefined when unknown. */
  createdAt: number | undefined;
  /** Indexes of the extended buckets with activity, ascending, without repeats. */
  active: number[];
}

/**
 * Each actor's active buckets. Actors are persons, or with aggregation_group_type_index the events' groups of that
 * type (reference: analytics §1.1), whose `new` bucket is the one holding the group's created_at. Personless
 * events (no person behind their distinct id) count for no one: PostHog's lifecycle joins persons for created_at
 * (test_lifecycle_query_runner.py::test_excludes_personless_events).
 */
function activeBuckets(events: EventList, extended: Buckets, entity: SeriesEntity, spec: TrendSpec, filter: TrendFilter, ctx: AnalysisContext): Map<ActorKey, Activity> {
  const matcher = compileEntityMatcher(entity, ctx, compileGlobalFilter(filter, ctx), `${entity.type}__${entity.position}`);
  const keyOf = actorKeyOf({ ...entity, math: undefined }, spec, ctx);
  const lookup = groupLookup(ctx.groups);
  const createdAtOf = (key: ActorKey, person: Actor["person"]): number | undefined => {
    if (spec.groupIndex === undefined) return person ? Date.parse(person.created_at) : undefined;
    const record = lookup.record(spec.groupIndex, String(key));
    return record ? Date.parse(record.created_at) : undefined;
  };
  const byActor = new Map<ActorKey, Activity>();
  forEachMatch(events, extended, matcher, actorResolver(ctx), (event, actor) => {
    if (spec.groupIndex === undefined && !actor.person) return;
    const key = keyOf(event, actor);
    if (key === undefined) return;
    let activity = byActor.get(key);
    if (!activity) byActor.set(key, (activity = { key, createdAt: createdAtOf(key, actor.person), active: [] }));
    const bucket = extended.indexOf(event.timestamp);
    if (bucket >= 0 && activity.active.at(-1) !== bucket) activity.active.push(bucket);
  });
  return byActor;
}

/** The same activity read from the columns over every core, for persons as actors; undefined when it cannot be. */
function columnActivity(events: EventList, extended: Buckets, entity: SeriesEntity, spec: TrendSpec, filter: TrendFilter, ctx: AnalysisContext): Map<ActorKey, Activity> | undefined {
  if (spec.groupIndex !== undefined) return undefined;
  const matcher = compileEntityMatcher(entity, ctx, compileGlobalFilter(filter, ctx), `${entity.type}__${entity.position}`);
  const active = activeBucketsOfActors(events, matcher, extended, ctx);
  if (!active) return undefined;
  const byActor = new Map<ActorKey, Activity>();
  for (const [actor, list] of active) if (actor.person) byActor.set(actor.id, { key: actor.id, createdAt: Date.parse(actor.person.created_at), active: list });
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
