import { reject } from "../../core/analysis-errors.ts";
import { isObject, readList, readNumber, readString, type Loose } from "../shared/filter-read.ts";
import { compileUserRegex } from "../../core/regex.ts";

/** The legacy paths filter JSON (reference: analytics §8.1); loose, read through PathsSpec. */
export type PathsFilter = Record<string, unknown>;

export const PATH_EVENT_TYPES = ["$pageview", "$screen", "custom_event", "hogql"] as const;

export interface PathsSpec {
  raw: Loose;
  /** Empty = every event. */
  eventTypes: string[];
  startPoint: string | undefined;
  endPoint: string | undefined;
  stepLimit: number;
  edgeLimit: number;
  minEdgeWeight: number | undefined;
  maxEdgeWeight: number | undefined;
  excluded: ReadonlySet<string>;
  /** Items matching a pattern (`*` = anything, found anywhere in the item) become the pattern; `parts` are its literal pieces between the `*`s. */
  groupings: { pattern: string; parts: string[] }[];
  /** Regex replacements applied to every item, in order, before grouping. */
  cleaning: { re: RegExp; alias: string }[];
  /** aggregation_group_type_index: the paths are the groups' (every event of the group in time order); undefined = persons. */
  groupIndex: number | undefined;
  /**
   * paths_hogql_expression where it makes the items (the `hogql` type is included, or no type is named): the item
   * of every event that is not a page view or screen of an included type. Undefined: the event name.
   */
  hogql: string | undefined;
}

/** Reads a paths filter; what this server does not model (funnel paths) is a 400 naming the field. */
export function readPathsFilter(filter: PathsFilter): PathsSpec {
  const eventTypes = readEventTypes(filter);
  if (readString(filter, "funnel_paths")) throw reject.invalid("funnel_paths", "Funnel paths are not supported by this server.");
  return {
    raw: filter,
    eventTypes,
    startPoint: point(readString(filter, "start_point")),
    endPoint: point(readString(filter, "end_point")),
    stepLimit: positive(filter, "step_limit", 5),
    edgeLimit: positive(filter, "edge_limit", 50),
    minEdgeWeight: readNumber(filter, "min_edge_weight"),
    maxEdgeWeight: readNumber(filter, "max_edge_weight"),
    excluded: new Set(readList(filter, "exclude_events").map(String)),
    groupings: readList(filter, "path_groupings").map((g) => ({ pattern: String(g), parts: String(g).split("*") })),
    cleaning: readList(filter, "local_path_cleaning_filters")
      .filter(isObject)
      .map((f, i) => replacement(String(f.regex ?? ""), String(f.alias ?? ""), `local_path_cleaning_filters__${i}__regex`)),
    groupIndex: readNumber(filter, "aggregation_group_type_index") ?? undefined,
    hogql: hogqlItem(filter, eventTypes),
  };
}

/**
 * The HogQL item expression when it applies: PostHog's paths runner uses it when `hogql` is an included type, or
 * when no type is named and `hogql` is not an excluded event; an empty expression leaves the event name.
 */
function hogqlItem(filter: Loose, eventTypes: readonly string[]): string | undefined {
  const expression = readString(filter, "paths_hogql_expression");
  if (!expression || expression.trim() === "") return undefined;
  const applies = eventTypes.length === 0 ? !readList(filter, "exclude_events").map(String).includes("hogql") : eventTypes.includes("hogql");
  return applies ? expression : undefined;
}

function readEventTypes(filter: Loose): string[] {
  const types = readList(filter, "include_event_types").map(String);
  const legacy = readString(filter, "path_type");
  const all = types.length === 0 && legacy ? [legacy] : types;
  const unknown = all.find((t) => !(PATH_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown !== undefined) throw reject.invalid("include_event_types", `"${unknown}" is not a path event type.`);
  return all;
}

/** Start and end points ignore a trailing `/` (except the root) (reference §8.1). */
const point = (value: string | undefined): string | undefined => (value ? trimSlash(value) : undefined);

/** PostHog's replaceRegexpAll(url, '(.)/$', '\\1'): one trailing slash goes, unless it is the whole item. */
export const trimSlash = (value: string): string => (value.length > 1 && value.endsWith("/") ? value.slice(0, -1) : value);

function positive(filter: Loose, key: string, fallback: number): number {
  const value = readNumber(filter, key);
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw reject.invalid(key, `${key} must be a positive integer.`);
  return value;
}

/** ClickHouse replaceRegexpAll: every match replaced; `\\1` in the alias is a capture group, `$` is literal. */
function replacement(pattern: string, alias: string, attr: string): { re: RegExp; alias: string } {
  return { re: compileUserRegex(pattern, attr, "g"), alias: alias.replace(/\$/g, "$$$$").replace(/\\(\d)/g, "$$$1") };
}
