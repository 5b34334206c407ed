import type { EventList } from "../../store/schema.ts";
import { actorResolver } from "../shared/actors.ts";
import { groupLookup } from "../shared/groups.ts";
import type { ActorKey } from "../trends/maths.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { resolveDateRange } from "../shared/date-range.ts";
import { compileGlobalFilter } from "../shared/entity-match.ts";
import { forEachMatch } from "../shared/scan.ts";
import { hogqlReader } from "../shared/hogql-breakdown.ts";
import { readPathsFilter, type PathsFilter, type PathsSpec } from "./filter.ts";
import { columnEdges, columnPathActors, type EdgeTally } from "./column-paths.ts";
import { pathItems, cutPath, pathCutOf, pointMatches, type PathPoint } from "./items.ts";

export type { PathsFilter } from "./filter.ts";

/** One edge of a paths `result` (reference: analytics §8.2). */
export interface PathEdge {
  source: string;
  target: string;
  value: number;
  /** Milliseconds. */
  average_conversion_time: number;
}

/** One session of one actor, compacted and cut as the filter asks: what the edges count. */
export interface Path {
  /** Person id, or group key with group aggregation. */
  actor: ActorKey;
  items: string[];
  times: number[];
}

/** A new session starts after a gap of 30 minutes or more (reference §8.2, §11 item 16). */
export const SESSION_GAP_MS = 30 * 60_000;

/**
 * Paths (reference: analytics §8): per actor, the range's events (of the included types) as path items in time
 * order, split into sessions at 30-minute gaps, consecutive repeats collapsed; item k of a path is node
 * `<k>_<item>`. Edges count the paths using them, with the mean time between their events in ms; sorted by value
 * (descending), source, target; weight-filtered, cut at edge_limit, and kept only when reachable from a `1_` node.
 */
export function computePaths(events: EventList, filter: PathsFilter, ctx: AnalysisContext): PathEdge[] {
  const spec = readPathsFilter(filter);
  const window = pathsWindow(events, filter, ctx);
  if (window.to < window.from) return [];
  const edges = columnEdges(events, spec, window, compileGlobalFilter(filter, ctx), ctx, SESSION_GAP_MS) ?? edgesOf(pathsOf(events, filter, ctx).paths);
  const kept = edges
    .filter((e) => (spec.minEdgeWeight === undefined || e.value >= spec.minEdgeWeight) && (spec.maxEdgeWeight === undefined || e.value <= spec.maxEdgeWeight))
    .sort((a, b) => b.value - a.value || compare(a.source, b.source) || compare(a.target, b.target))
    .slice(0, spec.edgeLimit);
  return reachable(kept).map(({ source, target, value, total }) => ({ source, target, value, average_conversion_time: total / value }));
}

/** Each edge with the paths using it and the sum of their times between its two nodes. */
function edgesOf(paths: readonly Path[]): EdgeTally[] {
  const edges: EdgeTally[] = [];
  const bySource = new Map<string, Map<string, EdgeTally>>();
  const node = nodeNames();
  for (const { items, times } of paths) {
    let source = node(0, items[0]!);
    for (let k = 1; k < items.length; k++) {
      const target = node(k, items[k]!);
      let targets = bySource.get(source);
      if (!targets) bySource.set(source, (targets = new Map()));
      let edge = targets.get(target);
      if (!edge) {
        edges.push((edge = { source, target, value: 0, total: 0 }));
        targets.set(target, edge);
      }
      edge.value++;
      edge.total += times[k]! - times[k - 1]!;
      source = target;
    }
  }
  return edges;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Node k (0-based) of a path, `<k+1>_<item>`, each name built once per analysis (edges name the same few nodes again and again). */
function nodeNames(): (k: number, item: string) => string {
  const byPosition: Map<string, string>[] = [];
  return (k, item) => {
    const names = (byPosition[k] ??= new Map());
    let name = names.get(item);
    if (name === undefined) names.set(item, (name = `${k + 1}_${item}`));
    return name;
  };
}

/** Only edges whose source can be reached from a `1_` node through the kept edges (PostHog validate_results). */
function reachable<E extends { source: string; target: string }>(edges: E[]): E[] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.source, [...(next.get(e.source) ?? []), e.target]);
  const seen = new Set<string>();
  const stack = edges.filter((e) => e.source.startsWith("1_")).map((e) => e.source);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (seen.has(node)) continue;
    seen.add(node);
    stack.push(...(next.get(node) ?? []));
  }
  return edges.filter((e) => seen.has(e.source));
}

/**
 * Per actor, how many times its paths count for an actors request's point (summed over the actors: the edge's
 * value), from the columns when they serve the request, else from the general scan's paths.
 */
export function pathActorShares(events: EventList, filter: PathsFilter, ctx: AnalysisContext, point: PathPoint<string>): Map<ActorKey, number> {
  const spec = readPathsFilter(filter);
  const window = pathsWindow(events, filter, ctx);
  if (window.to < window.from) return new Map();
  const counted = columnPathActors(events, spec, window, compileGlobalFilter(filter, ctx), ctx, SESSION_GAP_MS, point);
  if (counted) return counted;
  const shares = new Map<ActorKey, number>();
  for (const path of pathsOf(events, filter, ctx).paths) {
    const n = pointMatches(path.items, point);
    if (n > 0) shares.set(path.actor, (shares.get(path.actor) ?? 0) + n);
  }
  return shares;
}

/** Every path of the range: the edges count them, the actors endpoint lists their actors. */
export function pathsOf(events: EventList, filter: PathsFilter, ctx: AnalysisContext): { spec: PathsSpec; paths: Path[] } {
  const spec = readPathsFilter(filter);
  const window = pathsWindow(events, filter, ctx);
  if (window.to < window.from) return { spec, paths: [] };
  const groupKeyOf = spec.groupIndex === undefined ? undefined : groupLookup(ctx.groups).keyOf(spec.groupIndex);
  const itemFor = pathItems(spec, spec.hogql === undefined ? undefined : hogqlReader(spec.hogql, "paths_hogql_expression", { now: ctx.now ?? 0, timezone: ctx.timezone, propertyTypes: ctx.propertyTypes?.(), timeLimitMs: ctx.queryTimeLimitMs }));
  const open = new Map<ActorKey, { items: string[]; times: number[] }>();
  const paths: Path[] = [];
  const cut = pathCutOf(spec);
  const close = (actor: ActorKey, session: { items: string[]; times: number[] }) => {
    const path = cutPath(session.items, session.times, cut);
    if (path) paths.push({ actor, ...path });
  };
  const matcher = { names: namesOfTypes(spec.eventTypes), rest: compileGlobalFilter(filter, ctx) };
  // Transient rows: only the item, the time and the actor are kept.
  forEachMatch(events, window, matcher, actorResolver(ctx), (event, person) => {
    const item = itemFor(event, person.person);
    if (item === undefined) return;
    const actor = groupKeyOf ? groupKeyOf(event) : person.id;
    if (actor === undefined) return;
    let session = open.get(actor);
    if (session && event.timestamp - session.times[session.times.length - 1]! >= SESSION_GAP_MS) {
      close(actor, session);
      session = undefined;
    }
    if (!session) open.set(actor, (session = { items: [], times: [] }));
    session.items.push(item);
    session.times.push(event.timestamp);
  }, true);
  for (const [actor, session] of open) close(actor, session);
  return { spec, paths };
}

/** The range of a paths request; inverted, it answers no paths (PostHog's runner: no edges, no 400). */
const pathsWindow = (events: EventList, filter: PathsFilter, ctx: AnalysisContext) => resolveDateRange(filter, "day", ctx, events.at(0)?.timestamp);

/** Only these event names can be items when the types leave out custom events; null: any name may be. */
function namesOfTypes(types: readonly string[]): ReadonlySet<string> | null {
  if (!types.some((t) => t !== "hogql") || types.includes("custom_event")) return null;
  return new Set(types.filter((t) => t === "$pageview" || t === "$screen"));
}
