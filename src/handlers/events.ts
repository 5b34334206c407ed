import { LRUCache } from "lru-cache";
import { parseRelativeOrAbsoluteDate } from "../analyses/shared/date-range.ts";
import { parseInstant } from "./instant-param.ts";
import { fail } from "../core/errors.ts";
import { propertiesParam } from "../http/property-filters.ts";
import { parseParam } from "../http/query-json.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { isPersonId } from "../store/persons-repo.ts";
import type { EventTable } from "../store/event-table.ts";
import type { Store } from "../store/store.ts";
import type { EventRecord } from "../store/schema.ts";
import { compileHogql, shownValue, truthy, type EventRow, type HogqlEnv } from "../hogql/evaluate.ts";
import { projectPropertyTypes } from "../services/definitions.ts";
import { QueryBudget } from "../hogql/budget.ts";
import { loadHogql, parseHogqlExpr } from "../hogql/parse.ts";
import { toEventJson } from "./event-json.ts";
import { eventProperty } from "../core/event-read.ts";

type Q = Record<string, unknown>;
/** Events more than 5 s in the future stay hidden unless the client sets `before` (reference §5.1). */
const FUTURE_GRACE_MS = 5_000;
const VALUES_WINDOW_DAYS = 7;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

const queryOf = (args: HandlerArgs) => args.c.request.query as Q;

const PROPERTY_PREFIX = "properties_";

/**
 * `properties_<name>=<value or JSON list>` as the real service reads them: a JSON list is any of its values, anything
 * else one value; compared as text. They come through a free-form parameter whose names the pipeline checks
 * (`^properties_.+`; any other undeclared name is ignored there) and whose values validation keeps to strings.
 */
function propertyEquality(q: Q): (e: EventRecord) => boolean {
  const wanted: [string, Set<string>][] = [];
  for (const [param, raw] of Object.entries(q)) {
    if (!param.startsWith(PROPERTY_PREFIX) || typeof raw !== "string") continue;
    const decoded = (() => {
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return raw;
      }
    })();
    wanted.push([param.slice(PROPERTY_PREFIX.length), new Set((Array.isArray(decoded) ? decoded : [decoded]).map(textOf))]);
  }
  return (e) => wanted.every(([name, values]) => values.has(textOf(e.properties?.[name])));
}

const textOf = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value ?? null));
const dashed = (id: string) => id.toLowerCase().replace(/^(.{8})-?(.{4})-?(.{4})-?(.{4})-?(.{12})$/, "$1-$2-$3-$4-$5");

/** `after`/`before`: ISO 8601 (no offset = UTC) or relative (`-7d`, `2h`, `1w`: now minus that); anything else is a 400 naming it. */
function instantParam(args: HandlerArgs, name: "after" | "before"): number | null {
  const raw = queryOf(args)[name];
  if (raw === undefined) return null;
  const value = String(raw);
  const ms = parseInstant(value, args.deps.clock.now(), args.project.timezone);
  if (ms === undefined) throw fail.invalid(name, `${name} must be an ISO 8601 date-time or a relative date such as -7d or 2h.`);
  return ms;
}

/** A `select`/`where` parameter: a JSON array of HogQL expression strings. */
function hogqlList(q: Q, name: "select" | "where"): string[] | null {
  if (q[name] === undefined) return null;
  const value = parseParam(name, String(q[name]));
  if (!Array.isArray(value) || value.some((e) => typeof e !== "string") || value.length === 0) {
    throw fail.invalid(name, `${name} must be a non-empty JSON array of HogQL expression strings.`);
  }
  return value as string[];
}

/** What in-process HogQL reads besides the row: the clock, the project's zone and its property types (issue 22). */
const hogqlEnv = (args: HandlerArgs): HogqlEnv => ({
  now: args.deps.clock.now(),
  timezone: args.project.timezone,
  propertyTypes: projectPropertyTypes(args.deps.store, args.project.id),
  timeLimitMs: args.deps.config.queryTimeLimitMs,
});

/** `where`: every expression must be truthy for the event (evaluated, never ignored). */
function whereClause(args: HandlerArgs): ((row: EventRow) => boolean) | null {
  const exprs = hogqlList(queryOf(args), "where");
  if (!exprs) return null;
  const compiled = exprs.map((text) => compileHogql(parseHogqlExpr(text, "where"), "where", hogqlEnv(args)));
  const budget = new QueryBudget("where", args.deps.config.queryTimeLimitMs);
  return (row) => {
    budget.tick();
    return compiled.every((c) => truthy(c(row) ?? null));
  };
}

interface Column {
  name: string;
  value: (row: EventRow) => unknown;
}

/** `select`: the columns to return; `*` is the whole event as the list would show it. */
function selectColumns(args: HandlerArgs): Column[] | null {
  const exprs = hogqlList(queryOf(args), "select");
  if (!exprs) return null;
  return exprs.map((text) => {
    if (text.trim() === "*") return { name: "*", value: ({ event, person }: EventRow) => toEventJson(event, person) };
    const ast = parseHogqlExpr(text, "select");
    const compiled = compileHogql(ast, "select", hogqlEnv(args));
    return { name: ast.node === "Alias" ? String(ast.alias) : text.trim(), value: (row: EventRow) => shownValue(compiled(row), args.project.timezone) };
  });
}


const typeOf = (v: unknown) =>
  v === null ? "Nullable(Nothing)" : typeof v === "number" ? "Float64" : typeof v === "boolean" ? "Bool" : typeof v === "string" ? (/^\d{4}-\d\d-\d\dT/.test(v) ? "DateTime" : "String") : "JSON";

/** The half-open time bounds of a list: `after` < timestamp < `before` (or now + the grace). */
function timeBounds(args: HandlerArgs): { after: number | null; ceiling: number } {
  const before = instantParam(args, "before");
  return { after: instantParam(args, "after"), ceiling: before ?? args.deps.clock.now() + FUTURE_GRACE_MS + 1 };
}

/** The filters of a list besides time and name; null when there are none. */
function eventPredicate(args: HandlerArgs): ((e: EventRecord) => boolean) | null {
  const q = queryOf(args);
  const { store, clock, schemas } = args.deps;
  const index = store.analysisData.index(args.project.id);
  let ids: Set<string> | null = null;
  if (q.person_id !== undefined) {
    const personId = String(q.person_id);
    if (!isPersonId(personId)) throw fail.invalid("person_id", "person_id must be an integer id or a uuid.");
    ids = new Set(store.persons.find(args.project.id, personId)?.distinct_ids ?? []);
  }
  const ctx = { cohorts: store.analysisData.cohorts(args.project.id), now: clock.now(), timezone: args.project.timezone, groups: store.analysisData.groupData(args.project.id) };
  const matchesProperties = propertiesParam(q.properties, schemas, ctx);
  const where = whereClause(args);
  if (q.distinct_id === undefined && ids === null && matchesProperties === null && where === null) return null;
  return (e) =>
    (q.distinct_id === undefined || e.distinct_id === String(q.distinct_id)) &&
    (ids === null || ids.has(e.distinct_id)) &&
    (matchesProperties === null || matchesProperties({ event: e, person: index.personsByDistinctId.get(e.distinct_id) })) &&
    (where === null || where({ event: e, person: index.personsByDistinctId.get(e.distinct_id) }));
}

function ascendingOrder(q: Q): boolean {
  if (q.orderBy === undefined) return false;
  const order = parseParam("orderBy", String(q.orderBy));
  if (!Array.isArray(order) || order.length !== 1 || (order[0] !== "timestamp" && order[0] !== "-timestamp")) {
    throw fail.invalid("orderBy", 'orderBy must be ["-timestamp"] or ["timestamp"].');
  }
  return order[0] === "timestamp";
}

/**
 * `next` continues after the last returned event: `before` (or `after` when ascending) set 1 ms past its
 * timestamp and `offset` skipping the events at that timestamp already returned, so that events sharing the
 * boundary timestamp are neither skipped nor repeated (the real service skips them).
 */
function nextLink(url: URL, table: EventTable, matches: Int32Array, lastIndex: number, ascending: boolean): string {
  const at = (k: number) => table.timestampAt(matches[ascending ? k : matches.length - 1 - k]!);
  const last = at(lastIndex);
  let first = lastIndex;
  while (first > 0 && at(first - 1) === last) first--;
  const u = new URL(url);
  u.searchParams.set(ascending ? "after" : "before", new Date(last + (ascending ? -1 : 1)).toISOString());
  u.searchParams.set("offset", String(lastIndex - first + 1));
  return u.toString();
}

/** Event columns `is_column=true` reads (reference §5.3); `event` and `distinct_id` are read as columns even without it. */
const EVENT_COLUMNS: Record<string, (e: EventRecord, personUuid: (e: EventRecord) => string | undefined) => unknown> = {
  event: (e) => e.event,
  distinct_id: (e) => e.distinct_id,
  uuid: (e) => e.uuid,
  timestamp: (e) => new Date(e.timestamp).toISOString(),
  person_id: (e, personUuid) => personUuid(e),
};

/**
 * What `events/values` counts for `key`: `custom_event` is the names of the events outside PostHog's `$` taxonomy
 * (reference §5.3); an event column with `is_column`; otherwise the event property.
 */
function valueReader(key: string, isColumn: boolean, personUuid: (e: EventRecord) => string | undefined): (e: EventRecord) => unknown {
  if (key === "custom_event") return (e) => (e.event.startsWith("$") ? undefined : e.event);
  const column = EVENT_COLUMNS[key];
  if (column && (isColumn || key === "event" || key === "distinct_id")) return (e) => column(e, personUuid);
  if (isColumn) throw fail.invalid("key", `"${key}" is not an event column (columns: ${Object.keys(EVENT_COLUMNS).join(", ")}).`);
  return (e) => eventProperty(e, key);
}

/** Match lists kept per store: a page of the same list (or the list polled again) does not filter it again. */
const matchCaches = new WeakMap<Store, LRUCache<string, Int32Array>>();
const MATCH_LISTS_KEPT = 64;

/**
 * Positions (ascending) of the project's events that the list's filters accept. Time bounds are two binary
 * searches and the name its position list; the other filters run once per data version and query (a `where`
 * that reads now() is not kept). The cache key holds the bounds' positions, not their instants.
 */
function matchingPositions(args: HandlerArgs, table: EventTable, [lo, hi]: [number, number]): Int32Array {
  const q = queryOf(args);
  const { store } = args.deps;
  const { limit: _l, offset: _o, after: _a, before: _b, orderBy: _ob, select: _s, format: _f, ...filters } = q;
  const key = JSON.stringify([args.project.id, store.analysisData.version(args.project.id), lo, hi, filters, q.where === undefined ? 0 : args.deps.clock.now()]);
  let cache = matchCaches.get(store);
  if (!cache) matchCaches.set(store, (cache = new LRUCache({ max: MATCH_LISTS_KEPT })));
  const known = cache.get(key);
  if (known) return known;
  const predicate = eventPredicate(args);
  const candidates = q.event === undefined ? null : store.events.positionsNamed(args.project.id, String(q.event));
  const out: number[] = [];
  const consider = (position: number) => {
    if (position >= lo && position < hi && (predicate === null || predicate(table.at(position)!))) out.push(position);
  };
  if (candidates) for (const position of candidates) consider(position);
  else for (let position = lo; position < hi; position++) consider(position);
  const matches = Int32Array.from(out);
  cache.set(key, matches);
  return matches;
}

/** The positions [lo, hi) inside the list's time bounds: two binary searches. */
function positionBounds(args: HandlerArgs, table: EventTable): [number, number] {
  const { after, ceiling } = timeBounds(args);
  return [after === null ? 0 : firstPositionAtOrAfter(table, after + 1), firstPositionAtOrAfter(table, ceiling)];
}

function firstPositionAtOrAfter(table: EventTable, ts: number): number {
  let lo = 0;
  let hi = table.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (table.timestampAt(mid) < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One page of the events list (or of its `select` rows). */
function eventsPage(args: HandlerArgs, table: EventTable, bounds: [number, number]) {
  const q = queryOf(args);
  const ascending = ascendingOrder(q);
  const columns = selectColumns(args);
  const limit = Number(q.limit ?? 100);
  const offset = Number(q.offset ?? 0);
  const matches = matchingPositions(args, table, bounds);
  const picked = Array.from({ length: Math.max(0, Math.min(limit, matches.length - offset)) }, (_, k) => matches[ascending ? offset + k : matches.length - 1 - offset - k]!);
  const index = args.deps.store.analysisData.index(args.project.id);
  const rows = picked.map((position) => {
    const event = table.at(position)!;
    return { event, person: index.personsByDistinctId.get(event.distinct_id) };
  });
  const next = offset + limit < matches.length ? nextLink(args.url, table, matches, offset + picked.length - 1, ascending) : null;
  if (columns) {
    const results = rows.map((row) => columns.map((c) => c.value(row)));
    const types = columns.map((_, i) => typeOf(results.find((r) => r[i] !== null)?.[i] ?? null));
    return { columns: columns.map((c) => c.name), types, results, hasMore: next !== null, next };
  }
  return { count: matches.length, next, previous: null, results: rows.map((r) => toEventJson(r.event, r.person)) };
}

export const eventHandlers = {
  /** Newest first; `where` filters, `select` switches the rows to the chosen columns (reference §5.1). */
  events_list: async (args) => {
    const q = queryOf(args);
    const hogql = q.select !== undefined || q.where !== undefined;
    if (hogql) await loadHogql();
    const table = args.deps.store.events.of(args.project.id);
    const bounds = positionBounds(args, table);
    const build = () => eventsPage(args, table, bounds);
    if (q.format === "csv") return reply(200, build());
    // The page follows from the state, the URL and the bounds' positions (and now(), which HogQL may read).
    const key = `events:${args.deps.store.revision()}:${args.href}:${bounds.join(",")}:${hogql ? args.deps.clock.now() : ""}`;
    return reply(200, args.deps.bodies(key, build));
  },
  events_retrieve: (args) => {
    const id = String((args.c.request.params as Q).id);
    if (!UUID.test(id)) throw fail.invalid("id", "Invalid UUID");
    const event = args.deps.store.events.get(args.project.id, dashed(id));
    if (!event) throw fail.notFound(`No events exist for event UUID ${id}`);
    // The real service answers `person: null` unless asked (reference §5.2).
    const includePerson = (args.c.request.query as Q).include_person === true;
    const person = includePerson ? args.deps.store.analysisData.index(args.project.id).personsByDistinctId.get(event.distinct_id) : undefined;
    return reply(200, toEventJson(event, person));
  },

  /** Distinct values of a property (or, with is_column, an event column) over the last 7 days, most frequent first. */
  events_values_retrieve: (args) => {
    const q = queryOf(args);
    const key = String(q.key);
    const matchesProperties = propertyEquality(q);
    const names = q.event_name === undefined ? null : new Set([q.event_name].flat().map(String));
    const term = typeof q.value === "string" ? q.value.toLowerCase() : null;
    const now = args.deps.clock.now();
    const since = parseRelativeOrAbsoluteDate(`-${VALUES_WINDOW_DAYS}dStart`, now, args.project.timezone, "start")!;
    const index = args.deps.store.analysisData.index(args.project.id);
    const read = valueReader(key, (q as { is_column?: boolean }).is_column === true, (e) => index.personsByDistinctId.get(e.distinct_id)?.uuid);
    const counts = new Map<string, number>();
    for (const e of args.deps.store.events.of(args.project.id)) {
      if (e.timestamp < since || e.timestamp > now || (names && !names.has(e.event)) || !matchesProperties(e)) continue;
      for (const value of [read(e)].flat()) {
        if (value === undefined || value === null) continue;
        const name = typeof value === "object" ? JSON.stringify(value) : String(value);
        if (term === null || name.toLowerCase().includes(term)) counts.set(name, (counts.get(name) ?? 0) + 1);
      }
    }
    const top = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, Number(q.limit ?? 10));
    return reply(200, top.map(([name, count]) => ({ name, count })));
  },
} satisfies Record<string, Handler>;
