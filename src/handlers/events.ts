import { parseAbsolute } from "../analyses/shared/date-parse.ts";
import { parseRelativeOrAbsoluteDate } from "../analyses/shared/date-range.ts";
import { fail } from "../http/errors.ts";
import { propertiesParam } from "../http/property-filters.ts";
import { parseParam } from "../http/query-json.ts";
import { reply, type Handler, type HandlerArgs } from "../http/types.ts";
import { isPersonId } from "../store/persons-repo.ts";
import type { EventRecord } from "../store/schema.ts";
import { compileHogql, Interval, truthy, type EventRow, type Value } from "../hogql/evaluate.ts";
import { loadHogql, parseHogqlExpr } from "../hogql/parse.ts";
import { toEventJson } from "./event-json.ts";

type Q = Record<string, unknown>;
/** Events more than 5 s in the future stay hidden unless the client sets `before` (reference §5.1). */
const FUTURE_GRACE_MS = 5_000;
const VALUES_WINDOW_DAYS = 7;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const RELATIVE = /^-?\d+[hdwmqyMs]$/;

const queryOf = (args: HandlerArgs) => args.c.request.query as Q;
const dashed = (id: string) => id.toLowerCase().replace(/^(.{8})-?(.{4})-?(.{4})-?(.{4})-?(.{12})$/, "$1-$2-$3-$4-$5");

/** `after`/`before`: ISO 8601 (no offset = UTC) or relative (`-7d`, `2h`, `1w`: now minus that); anything else is a 400 naming it. */
function instantParam(args: HandlerArgs, name: "after" | "before"): number | null {
  const raw = queryOf(args)[name];
  if (raw === undefined) return null;
  const value = String(raw);
  const ms = RELATIVE.test(value)
    ? parseRelativeOrAbsoluteDate(value.startsWith("-") ? value : `-${value}`, args.deps.clock.now(), args.project.timezone, "start")
    : parseAbsolute(value, "UTC")?.ms;
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

/** `where`: every expression must be truthy for the event (evaluated, never ignored). */
function whereClause(args: HandlerArgs): ((row: EventRow) => boolean) | null {
  const exprs = hogqlList(queryOf(args), "where");
  if (!exprs) return null;
  const compiled = exprs.map((text) => compileHogql(parseHogqlExpr(text, "where"), "where", args.deps.clock.now()));
  return (row) => compiled.every((c) => truthy(c(row) ?? null));
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
    const compiled = compileHogql(ast, "select", args.deps.clock.now());
    return { name: ast.node === "Alias" ? String(ast.alias) : text.trim(), value: (row: EventRow) => jsonValue(compiled(row)) };
  });
}

const jsonValue = (v: Value): unknown => (v instanceof Date ? v.toISOString() : v instanceof Interval ? v.ms / 1000 : Array.isArray(v) ? v.map(jsonValue) : (v ?? null));

const typeOf = (v: unknown) =>
  v === null ? "Nullable(Nothing)" : typeof v === "number" ? "Float64" : typeof v === "boolean" ? "Bool" : typeof v === "string" ? (/^\d{4}-\d\d-\d\dT/.test(v) ? "DateTime" : "String") : "JSON";

function eventPredicate(args: HandlerArgs): (e: EventRecord) => boolean {
  const q = queryOf(args);
  const { store, clock, schemas } = args.deps;
  const index = store.analysisData.index(args.project.id);
  const after = instantParam(args, "after");
  const before = instantParam(args, "before");
  const ceiling = before ?? clock.now() + FUTURE_GRACE_MS + 1;
  let ids: Set<string> | null = null;
  if (q.person_id !== undefined) {
    const personId = String(q.person_id);
    if (!isPersonId(personId)) throw fail.invalid("person_id", "person_id must be an integer id or a uuid.");
    ids = new Set(store.persons.find(args.project.id, personId)?.distinct_ids ?? []);
  }
  const ctx = { cohorts: store.analysisData.cohorts(args.project.id), now: clock.now(), timezone: args.project.timezone, groups: store.analysisData.groupData(args.project.id) };
  const matchesProperties = propertiesParam(q.properties, schemas, ctx);
  const where = whereClause(args);
  return (e) =>
    e.timestamp < ceiling &&
    (after === null || e.timestamp > after) &&
    (q.event === undefined || e.event === q.event) &&
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
function nextLink(url: URL, matches: readonly EventRecord[], lastIndex: number, ascending: boolean): string {
  const last = matches[lastIndex]!;
  let first = lastIndex;
  while (first > 0 && matches[first - 1]!.timestamp === last.timestamp) first--;
  const u = new URL(url);
  u.searchParams.set(ascending ? "after" : "before", new Date(last.timestamp + (ascending ? -1 : 1)).toISOString());
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
  return (e) => e.properties[key];
}

export const eventHandlers = {
  /** Newest first; `where` filters, `select` switches the rows to the chosen columns (reference §5.1). */
  events_list: async (args) => {
    const q = queryOf(args);
    if (q.select !== undefined || q.where !== undefined) await loadHogql();
    const ascending = ascendingOrder(q);
    const columns = selectColumns(args);
    const limit = Number(q.limit ?? 100);
    const offset = Number(q.offset ?? 0);
    const { events } = args.deps.store;
    const candidates = q.event === undefined ? events.of(args.project.id) : events.named(args.project.id, String(q.event));
    const matches = candidates.filter(eventPredicate(args));
    if (!ascending) matches.reverse();
    const page = matches.slice(offset, offset + limit);
    const index = args.deps.store.analysisData.index(args.project.id);
    const rows = page.map((event) => ({ event, person: index.personsByDistinctId.get(event.distinct_id) }));
    const next = offset + limit < matches.length ? nextLink(args.url, matches, offset + page.length - 1, ascending) : null;
    if (columns) {
      const results = rows.map((row) => columns.map((c) => c.value(row)));
      const types = columns.map((_, i) => typeOf(results.find((r) => r[i] !== null)?.[i] ?? null));
      return reply(200, { columns: columns.map((c) => c.name), types, results, hasMore: next !== null, next });
    }
    return reply(200, { count: matches.length, next, previous: null, results: rows.map((r) => toEventJson(r.event, r.person)) });
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
    const names = q.event_name === undefined ? null : new Set([q.event_name].flat().map(String));
    const term = typeof q.value === "string" ? q.value.toLowerCase() : null;
    const now = args.deps.clock.now();
    const since = parseRelativeOrAbsoluteDate(`-${VALUES_WINDOW_DAYS}dStart`, now, args.project.timezone, "start")!;
    const index = args.deps.store.analysisData.index(args.project.id);
    const read = valueReader(key, (q as { is_column?: boolean }).is_column === true, (e) => index.personsByDistinctId.get(e.distinct_id)?.uuid);
    const counts = new Map<string, number>();
    for (const e of args.deps.store.events.of(args.project.id)) {
      if (e.timestamp < since || e.timestamp > now || (names && !names.has(e.event))) continue;
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
