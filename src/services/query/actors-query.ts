import { reject } from "../../core/analysis-errors.ts";
import { plus } from "../../core/time-zones.ts";
import { parseAbsolute } from "../../core/date-parse.ts";
import { isObject, type Loose } from "../../analyses/shared/filter-read.ts";
import type { DataPoint } from "../../analyses/actors/index.ts";
import type { GroupRecord, PersonRecord } from "../../store/schema.ts";
import { insightDefinition } from "./insight-query.ts";
import { applyDashboardFilter } from "../../analyses/shared/dashboard-filter.ts";

/** One actor of an ActorsQuery: a person or a group, with its share of the data point where it has one. */
export interface Actor {
  person?: PersonRecord;
  group?: GroupRecord;
  value: number | null;
  /** Retention: the values of the cohort's row the actor appears in. */
  appearances?: number[];
}

const PATH_KEYS = ["path_start_key", "path_end_key", "path_dropoff_key"] as const;

/**
 * InsightActorsQuery → the analysis kind, its filter and the data point, the same as the legacy persons
 * endpoints take: `series` → entity_order, `breakdown` → breakdown_value, `day` → the bucket (trends: the date
 * range narrowed to it; stickiness: the number of days; lifecycle: target_date), `status` → lifecycle_type,
 * `funnelStep`/`funnelStepBreakdown`, `interval` → retention's selected_interval, the paths keys. A
 * FunnelsActorsQuery (the funnel's own actors node) adds `funnelCustomSteps` → funnel_custom_steps and
 * `funnelTrendsEntrancePeriodStart`/`funnelTrendsDropOff` → entrance_period_start/drop_off, as the legacy endpoint.
 */
export function insightActorsDefinition(node: Loose, attr: string, timezone: string, filtersOverride?: Loose): { kind: string; filter: Loose; point: DataPoint } {
  if (!isObject(node.source)) throw reject.required(`${attr}__source`);
  const definition = insightDefinition(node.source, `${attr}__source`);
  const kind = definition.kind;
  // A dashboard's filters rewrite the source insight first (PostHog's ActorsQueryRunner passes them to its source runner).
  const filter = applyDashboardFilter(kind, definition.filter, filtersOverride);
  if ((kind === "FUNNEL_CORRELATION") !== (node.kind === "FunnelCorrelationActorsQuery")) {
    throw reject.invalid(`${attr}__source__kind`, "A FunnelCorrelationActorsQuery's source is a FunnelCorrelationQuery, and a FunnelCorrelationQuery's actors are asked with one.");
  }
  if (node.kind === "StickinessActorsQuery" && kind !== "STICKINESS") throw reject.invalid(`${attr}__source__kind`, "A StickinessActorsQuery's source is a StickinessQuery.");
  if (node.kind === "FunnelsActorsQuery" && kind !== "FUNNELS") throw reject.invalid(`${attr}__source__kind`, "A FunnelsActorsQuery's source is a FunnelsQuery.");
  const point: DataPoint = {};
  const set = (key: string, value: unknown) => void (value !== undefined && value !== null ? (point[key] = value) : 0);
  // A trend's actors default to its first series (PostHog test_trends_persons.py::test_trends_multiple_series_persons).
  set("entity_order", node.series ?? (kind === "TRENDS" ? 0 : undefined));
  // A breakdowns list's value of several parts travels as its JSON text, as the trend rows compare it.
  set("breakdown_value", Array.isArray(node.breakdown) ? (node.breakdown.length > 1 ? JSON.stringify(node.breakdown) : node.breakdown[0]) : node.breakdown);
  set("lifecycle_type", node.status);
  set("stickiness_operator", node.kind === "StickinessActorsQuery" ? node.operator : undefined);
  set("funnel_step", node.funnelStep);
  set("funnel_step_breakdown", node.funnelStepBreakdown);
  set("funnel_custom_steps", node.funnelCustomSteps);
  set("entrance_period_start", node.funnelTrendsEntrancePeriodStart);
  set("drop_off", node.funnelTrendsDropOff);
  set("selected_interval", node.interval);
  for (const key of PATH_KEYS) if (filter[key] !== undefined) set(key, filter[key]);
  if (kind === "FUNNEL_CORRELATION") Object.assign(point, correlationPoint(node));
  // The previous period's point is the trend analysis' to find (its range depends on the clock and the compare rules).
  const previous = kind === "TRENDS" && node.compare === "previous" && filter.compare === true;
  if (previous) {
    if (node.day !== undefined && node.day !== null && !parseAbsolute(String(node.day), timezone)) throw reject.invalid(`${attr}__day`, `"${String(node.day)}" is not a date or date-time.`);
    set("compare_value", "previous");
    set("time_frame", node.day);
  } else if (node.day !== undefined && node.day !== null) Object.assign(kind === "TRENDS" ? filter : point, dayOf(kind, node.day, filter, timezone));
  return { kind, filter, point };
}

/**
 * FunnelCorrelationActorsQuery → the data point of /persons/funnel/correlation/: `funnelCorrelationPersonConverted`
 * (absent: converted and dropped-off alike), the row's event (`funnelCorrelationPersonEntity`, an EventsNode or
 * ActionsNode with its properties) or its property values (`funnelCorrelationPropertyValues`).
 */
function correlationPoint(node: Loose): DataPoint {
  const point: DataPoint = {};
  if (typeof node.funnelCorrelationPersonConverted === "boolean") point.funnel_correlation_person_converted = String(node.funnelCorrelationPersonConverted);
  const entity = node.funnelCorrelationPersonEntity;
  if (isObject(entity)) {
    const properties = entity.properties ?? [];
    point.funnel_correlation_person_entity = entity.kind === "ActionsNode" ? { id: entity.id, type: "actions", properties } : { id: entity.event ?? null, type: "events", properties };
  }
  if (Array.isArray(node.funnelCorrelationPropertyValues)) point.funnel_correlation_property_values = node.funnelCorrelationPropertyValues;
  return point;
}

/** The bucket of `day`: a narrowed date range for trends, the day count for stickiness, target_date for lifecycle. */
function dayOf(kind: string, day: unknown, filter: Loose, timezone: string): Loose {
  if (kind === "STICKINESS") return { stickiness_days: Number(day) };
  if (kind === "LIFECYCLE") return { target_date: String(day) };
  const from = String(day);
  // A TrendsQuery's minute interval travels as `query_interval` beside the legacy filter's hour (query-node.ts).
  const interval = filter.query_interval === "minute" ? "minute" : typeof filter.interval === "string" ? filter.interval : "day";
  const start = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(from) || from.length <= 10 ? from : `${from}Z`);
  if (Number.isNaN(start) || interval === "day") return { date_from: from, date_to: from };
  const unit = interval === "minute" || interval === "hour" || interval === "week" || interval === "month" ? interval : "day";
  return { date_from: new Date(start).toISOString(), date_to: new Date(plus(start, 1, unit, timezone) - 1).toISOString() };
}

type Reader = (actor: Actor) => unknown;

const personObject = (p: PersonRecord) => ({ id: p.uuid, uuid: p.uuid, distinct_ids: p.distinct_ids, properties: p.properties, created_at: p.created_at, is_identified: p.is_identified });
const groupObject = (g: GroupRecord) => ({ id: g.group_key, group_key: g.group_key, group_type_index: g.group_type_index, properties: g.properties, created_at: g.created_at });
const displayName = (a: Actor, name: (p: PersonRecord) => string) =>
  a.person ? { display_name: name(a.person), id: a.person.uuid, distinct_id: a.person.distinct_ids[0] ?? null } : a.group ? { display_name: String(a.group.properties.name ?? a.group.group_key), id: a.group.group_key } : null;

/**
 * The ActorsQuery columns answered: `actor`/`person` (the actor object), `id`, `created_at`, `event_count`
 * (the actor's share of the data point), `person_display_name`, `matched_recordings` (always empty),
 * `properties.<key>`; for retention `appearances` and `<period>_<j>` (whether the actor appears in value j,
 * PostHog's `arrayExists` columns, 1 or 0). Any other column is a 400 naming it.
 */
export function actorColumns(select: readonly string[], attr: string, name: (p: PersonRecord) => string): Reader[] {
  return select.map((raw, i): Reader => {
    const column = raw.replace(/\s+--.*$/, "").trim();
    if (column === "actor" || column === "person") return (a) => (a.person ? personObject(a.person) : a.group ? groupObject(a.group) : null);
    if (column === "id" || column === "actor_id") return (a) => a.person?.uuid ?? a.group?.group_key ?? null;
    if (column === "created_at") return (a) => a.person?.created_at ?? a.group?.created_at ?? null;
    if (column === "event_count") return (a) => a.value;
    if (column === "person_display_name") return (a) => displayName(a, name);
    if (column === "matched_recordings") return () => [];
    if (column === "appearances") return (a) => a.appearances ?? null;
    const value = /^(?:hour|day|week|month)_(\d+)$/.exec(column);
    if (value) return (a) => (a.appearances ? Number(a.appearances.includes(Number(value[1]))) : null);
    const property = /^properties\.(.+)$/.exec(column);
    if (property) return (a) => (a.person ?? a.group)?.properties[property[1]!] ?? null;
    throw reject.invalid(`${attr}__select__${i}`, `Actors column "${column}" is not supported (columns: actor, person, id, created_at, event_count, person_display_name, matched_recordings, properties.<key>, appearances, <period>_<j>).`);
  });
}

const ORDERS: Readonly<Record<string, (a: Actor, b: Actor) => number>> = {
  event_count: (a, b) => (a.value ?? 0) - (b.value ?? 0),
  created_at: (a, b) => String(a.person?.created_at ?? a.group?.created_at).localeCompare(String(b.person?.created_at ?? b.group?.created_at)),
  actor_id: (a, b) => String(a.person?.uuid ?? a.group?.group_key).localeCompare(String(b.person?.uuid ?? b.group?.group_key)),
  "length(appearances)": (a, b) => (a.appearances?.length ?? 0) - (b.appearances?.length ?? 0),
};

/** `orderBy` over event_count, created_at, actor_id/id, length(appearances) (ASC or DESC); anything else is a 400 naming it. */
export function sortActors(actors: Actor[], orderBy: unknown, attr: string): Actor[] {
  if (!Array.isArray(orderBy) || orderBy.length === 0) return actors;
  const keys = orderBy.map((raw, i) => {
    const [column = "", direction = "ASC"] = String(raw).trim().split(/\s+/);
    const compare = ORDERS[column === "id" ? "actor_id" : column];
    if (!compare || !/^(ASC|DESC)$/i.test(direction)) throw reject.invalid(`${attr}__orderBy__${i}`, `Ordering actors by "${String(raw)}" is not supported (event_count, created_at, actor_id, length(appearances); ASC or DESC).`);
    return { compare, sign: /^DESC$/i.test(direction) ? -1 : 1 };
  });
  return [...actors].sort((a, b) => {
    for (const key of keys) {
      const order = key.compare(a, b) * key.sign;
      if (order !== 0) return order;
    }
    return 0;
  });
}
