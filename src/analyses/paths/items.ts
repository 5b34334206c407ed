import type { EventRecord, PersonRecord } from "../../store/schema.ts";
import { stringForm } from "../shared/property-operators.ts";
import { trimSlash, type PathsSpec } from "./filter.ts";
import { eventProperty } from "../../core/event-read.ts";

/**
 * Path items and path cutting (reference: analytics §8.1–8.2; PostHog paths_query_runner): what an event stands
 * for, and how one session becomes the path whose edges are counted.
 */

/**
 * The event's path item, or undefined when its type is not included or the item is excluded. `other` is the item
 * of an event that is not a page view or screen of an included type: its name, or the HogQL item's value. The
 * `hogql` type selects no events itself: with only it, every event has an item (PostHog's paths runner).
 */
export function itemOf(event: EventRecord, spec: PathsSpec, other: string = event.event): string | undefined {
  const types = spec.eventTypes;
  const wants = (type: string) => types.length === 0 || types.includes(type);
  const isPageview = event.event === "$pageview";
  const isScreen = event.event === "$screen";
  const selective = types.some((t) => t !== "hogql");
  if (selective && !(isPageview && wants("$pageview")) && !(isScreen && wants("$screen")) && !(wants("custom_event") && !event.event.startsWith("$"))) {
    return undefined;
  }
  let item = other;
  if (isPageview && wants("$pageview")) item = trimSlash(text(eventProperty(event, "$current_url")));
  else if (isScreen && wants("$screen")) item = text(eventProperty(event, "$screen_name"));
  for (const { re, alias } of spec.cleaning) item = item.replace(re, alias);
  const grouping = groupingOf(item, spec.groupings);
  if (grouping) item = grouping.pattern;
  return spec.excluded.has(item) ? undefined : item;
}

/**
 * The grouping an item falls in. PostHog matches every pattern anywhere in the item at once (ClickHouse
 * multiMatchAnyIndex, on Hyperscan, which reports matches by where they end): the pattern whose match ends first
 * wins, the earlier listed on a tie (test_paths_query_runner_ee.py::test_wildcard_groups_evil_input: "/2/3?q=1"
 * is "/3*", not "/3?q=1").
 */
function groupingOf<G extends { parts: string[] }>(item: string, groupings: readonly G[]): G | undefined {
  let best: G | undefined;
  let bestEnd = Infinity;
  for (const grouping of groupings) {
    const end = earliestEnd(item, grouping.parts);
    if (end < bestEnd) [best, bestEnd] = [grouping, end];
  }
  return best;
}

/** Where the first match of the literal `parts` joined by "anything" ends in `text` (each part found as early as it can be), or Infinity. */
function earliestEnd(text: string, parts: readonly string[]): number {
  let end = 0;
  for (const part of parts) {
    if (part === "") continue;
    const at = text.indexOf(part, end);
    if (at < 0) return Infinity;
    end = at + part.length;
  }
  return end;
}

/**
 * itemOf per event, memoised: an item follows from the event name and its URL or screen name alone, so the
 * cleaning rules, groupings and exclusions run once per distinct value, not once per event.
 */
export function pathItems(spec: PathsSpec, hogql?: HogqlItem): (event: EventRecord, person: PersonRecord | undefined) => string | undefined {
  const known = new Map<string, string | undefined>();
  const wantsPageviews = spec.eventTypes.length === 0 || spec.eventTypes.includes("$pageview");
  const wantsScreens = spec.eventTypes.length === 0 || spec.eventTypes.includes("$screen");
  return (event, person) => {
    const name = event.event;
    const isPageview = name === "$pageview" && wantsPageviews;
    const isScreen = name === "$screen" && wantsScreens;
    // A HogQL item reads more than the name: computed per event (null is the empty item, PostHog's ifNull(…, '')).
    if (hogql && !isPageview && !isScreen) return itemOf(event, spec, text(hogql(event, person)));
    const detail = isPageview ? eventProperty(event, "$current_url") : isScreen ? eventProperty(event, "$screen_name") : undefined;
    // Values of other types than strings keep their own entry: `1` and "1" may be cleaned alike but are read apart.
    const key = detail === undefined ? `e${name}` : typeof detail === "string" ? `${name === "$pageview" ? "p" : "s"}${detail}` : undefined;
    if (key === undefined) return itemOf(event, spec);
    if (known.has(key)) return known.get(key);
    const item = itemOf(event, spec);
    known.set(key, item);
    return item;
  };
}

/** The value of paths_hogql_expression for one event (shared/hogql-breakdown.ts hogqlReader). */
export type HogqlItem = (event: EventRecord, person: PersonRecord | undefined) => unknown;

const text = (value: unknown): string => (value === undefined || value === null ? "" : stringForm(value));

/** How a session is cut into its path: the start and end points, the step limit, and the item standing for the cut middle. */
export interface PathCut<T> {
  start: T | undefined;
  end: T | undefined;
  stepLimit: number;
  ellipsis: T;
}

export const pathCutOf = (spec: PathsSpec): PathCut<string> => ({ start: spec.startPoint, end: spec.endPoint, stepLimit: spec.stepLimit, ellipsis: "..." });

/**
 * One session → its path: consecutive repeats collapse to their last event; start_point keeps the path from the
 * point's first occurrence, end_point up to it (the path must contain them); step_limit keeps the first items,
 * the last ones with an end point, or, with both points, the first and last halves around a "..." item. Items
 * are strings, or their ids where a scan worker cuts paths.
 */
export function cutPath<T>(items: readonly T[], times: readonly number[], cut: PathCut<T>): { items: T[]; times: number[] } | undefined {
  const limit = cut.stepLimit;
  // Indices of the items left once consecutive repeats collapse to their last event; without points, the first
  // `limit` of them are all the path keeps.
  const open = cut.start === undefined && cut.end === undefined;
  let path: number[] = [];
  for (let i = 0; i < items.length && !(open && path.length === limit); i++) if (items[i + 1] !== items[i]) path.push(i);
  if (cut.start !== undefined) {
    const s = indexOfItem(path, items, cut.start);
    if (s < 0) return undefined;
    path = path.slice(s);
  }
  if (cut.end !== undefined) {
    const e = indexOfItem(path, items, cut.end);
    if (e < 0) return undefined;
    path = path.slice(0, e + 1);
  }
  if (cut.start !== undefined && cut.end !== undefined) {
    if (path.length <= limit) return picked(items, times, path);
    const half = Math.floor(limit / 2);
    const head = picked(items, times, path.slice(0, half));
    const tail = picked(items, times, path.slice(path.length - half));
    return { items: [...head.items, cut.ellipsis, ...tail.items], times: [...head.times, times[path[half]!]!, ...tail.times] };
  }
  return picked(items, times, cut.end !== undefined ? path.slice(-limit) : path.slice(0, limit));
}

// Plain loops, no closure per call: paths cut one session at a time, millions of them at scale.

/** The items and times at `indexes`. */
function picked<T>(items: readonly T[], times: readonly number[], indexes: readonly number[]): { items: T[]; times: number[] } {
  const out = { items: new Array<T>(indexes.length), times: new Array<number>(indexes.length) };
  for (let k = 0; k < indexes.length; k++) {
    out.items[k] = items[indexes[k]!]!;
    out.times[k] = times[indexes[k]!]!;
  }
  return out;
}

/** The position in `list` of the first index whose item is `point`, else −1. */
function indexOfItem<T>(list: readonly number[], items: readonly T[], point: T): number {
  for (let k = 0; k < list.length; k++) if (items[list[k]!] === point) return k;
  return -1;
}

/** A path node named by an actors request (`<k+1>_<item>`): its position and item. */
export interface PathNode<T> {
  k: number;
  item: T;
}

/** The node a key names, or null when no node can be named so (node names have no leading zero nor empty position). */
export function pathNodeOf(key: string): PathNode<string> | null {
  const match = /^([1-9]\d*)_(.*)$/s.exec(key);
  return match ? { k: Number(match[1]) - 1, item: match[2]! } : null;
}

/** What an actors request asks of each path (PostHog's rows per path node: `last_path_key = start` and/or `path_key = end`). */
export interface PathPoint<T> {
  start?: PathNode<T> | null;
  end?: PathNode<T> | null;
  /** Paths ending at this node. */
  dropoff?: PathNode<T> | null;
}

const isAt = <T>(items: readonly T[], k: number, node: PathNode<T> | null): boolean => node !== null && node.k === k && items[k] === node.item;

/**
 * How many times one path counts for the point: 1 when it ends at the dropoff node; else its nodes preceded by
 * `start` and/or equal to `end` (every node when neither is given).
 */
export function pointMatches<T>(items: readonly T[], point: PathPoint<T>): number {
  if (point.dropoff !== undefined) return isAt(items, items.length - 1, point.dropoff) ? 1 : 0;
  let n = 0;
  for (let k = 0; k < items.length; k++) {
    if (point.start !== undefined && (k === 0 || !isAt(items, k - 1, point.start))) continue;
    if (point.end !== undefined && !isAt(items, k, point.end)) continue;
    n++;
  }
  return n;
}
