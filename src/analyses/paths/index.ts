import type { EventList } from "../../store/schema.ts";
import { actorResolver } from "../shared/actors.ts";
import { groupLookup } from "../shared/groups.ts";
import type { ActorKey } from "../trends/maths.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { resolveDateRange } from "../shared/date-range.ts";
import { compileGlobalFilter } from "../shared/entity-match.ts";
import { indexRange } from "../shared/scan.ts";
import { readPathsFilter, type PathsFilter, type PathsSpec } from "./filter.ts";
import { itemOf, cutPath } from "./items.ts";

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
  const { spec, paths } = pathsOf(events, filter, ctx);
  const edges = new Map<string, { source: string; target: string; value: number; total: number }>();
  for (const path of paths) {
    for (let k = 1; k < path.items.length; k++) {
      const source = nodeOf(path, k - 1);
      const target = nodeOf(path, k);
      const id = `${source}\u0001${target}`;
      const edge = edges.get(id) ?? { source, target, value: 0, total: 0 };
      if (edge.value === 0) edges.set(id, edge);
      edge.value++;
      edge.total += path.times[k]! - path.times[k - 1]!;
    }
  }
  const kept = [...edges.values()]
    .filter((e) => (spec.minEdgeWeight === undefined || e.value >= spec.minEdgeWeight) && (spec.maxEdgeWeight === undefined || e.value <= spec.maxEdgeWeight))
    .sort((a, b) => b.value - a.value || compare(a.source, b.source) || compare(a.target, b.target))
    .slice(0, spec.edgeLimit);
  return reachable(kept).map(({ source, target, value, total }) => ({ source, target, value, average_conversion_time: total / value }));
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Node k (0-based) of a path: `<k+1>_<item>`. */
export const nodeOf = (path: Path, k: number): string => `${k + 1}_${path.items[k]}`;

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

/** Every path of the range: the edges count them, the actors endpoint lists their actors. */
export function pathsOf(events: EventList, filter: PathsFilter, ctx: AnalysisContext): { spec: PathsSpec; paths: Path[] } {
  const spec = readPathsFilter(filter);
  const window = resolveDateRange(filter, "day", ctx, events.at(0)?.timestamp);
  const global = compileGlobalFilter(filter, ctx);
  const actorOf = actorResolver(ctx);
  const groupKeyOf = spec.groupIndex === undefined ? undefined : groupLookup(ctx.groups).keyOf(spec.groupIndex);
  const open = new Map<ActorKey, { items: string[]; times: number[] }>();
  const paths: Path[] = [];
  const close = (actor: ActorKey, session: { items: string[]; times: number[] }) => {
    const path = cutPath(session.items, session.times, spec);
    if (path) paths.push({ actor, ...path });
  };
  const [start, end] = indexRange(events, window.from, window.to);
  for (let i = start; i < end; i++) {
    const event = events.at(i)!;
    const item = itemOf(event, spec);
    if (item === undefined) continue;
    const person = actorOf(event.distinct_id);
    if (!global(event, person.person)) continue;
    const actor = groupKeyOf ? groupKeyOf(event) : person.id;
    if (actor === undefined) continue;
    let session = open.get(actor);
    if (session && event.timestamp - session.times.at(-1)! >= SESSION_GAP_MS) {
      close(actor, session);
      session = undefined;
    }
    if (!session) open.set(actor, (session = { items: [], times: [] }));
    session.items.push(item);
    session.times.push(event.timestamp);
  }
  for (const [actor, session] of open) close(actor, session);
  return { spec, paths };
}
