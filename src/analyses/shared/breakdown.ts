import { reject } from "../../core/analysis-errors.ts";
import type { EventRecord, PersonRecord } from "../../store/schema.ts";
import type { AnalysisContext } from "./context.ts";
import { decodeJsonish, isObject, readBool, readNumber, readString, type Loose } from "./filter-read.ts";
import { groupBreakdownSource, type GroupPropertiesOf } from "./groups.ts";
import { hogqlReader } from "./hogql-breakdown.ts";
import { cohortMembers, metadataReader } from "./property-filter.ts";
import { stringForm } from "./property-operators.ts";
import { sessionPropertyReader, SESSION_PROPERTY_NAMES, UNDERIVED_SESSION_PROPERTIES } from "./session-properties.ts";
import { eventProperty } from "../../core/event-read.ts";
import { personPropertyValue } from "../../core/person-property-read.ts";

/** Breakdown definitions shared by trends and funnels (reference: analytics §2.5, §5.4). */
export const BREAKDOWN_NULL = "$$_posthog_breakdown_null_$$";
export const BREAKDOWN_OTHER = "$$_posthog_breakdown_other_$$";

export const BREAKDOWN_TYPES = ["event", "person", "cohort", "group", "session", "hogql", "event_metadata"] as const;
const NOT_MODELLED = new Set(["data_warehouse", "data_warehouse_person_property"]);
type PartType = (typeof BREAKDOWN_TYPES)[number];

export interface PropertyPart {
  source: "event" | "person" | "group" | "session" | "hogql";
  key: string;
  normalizeUrl: boolean;
  /** source "group": the properties of the event's group of breakdown_group_type_index. */
  groupProperties?: GroupPropertiesOf;
  /** Session properties and HogQL expressions: how the value is read (event and person properties need none). */
  read?: (event: EventRecord, person: PersonRecord | undefined) => unknown;
  /** An item of a breakdowns list with `histogram_bin_count`: its values fall into that many equal-width bins. */
  bins?: number;
}

type BreakdownContext = Pick<AnalysisContext, "cohorts" | "groups"> & Partial<Pick<AnalysisContext, "now" | "sessions" | "timezone" | "propertyTypes" | "queryTimeLimitMs">>;

export interface CohortTarget {
  /** Cohort id, or "all" for everyone. */
  value: number | "all";
  label: string;
  /** undefined = all users. */
  members: Set<number> | undefined;
}

export type BreakdownDef =
  | { kind: "property"; parts: PropertyPart[]; multi: boolean; histogramBins: number | undefined }
  | { kind: "cohort"; cohorts: CohortTarget[] };

const MAX_BREAKDOWNS = 3;

/** Reads breakdown/breakdowns/breakdown_type; undefined when there is no breakdown. */
export function readBreakdown(filter: Loose, ctx: BreakdownContext): BreakdownDef | undefined {
  const normalizeUrl = readBool(filter, "breakdown_normalize_url");
  const multiple = decodeJsonish(filter.breakdowns, "breakdowns");
  if (Array.isArray(multiple) && multiple.length > 0) {
    // PostHog's BreakdownFilter takes at most three (test_trends_multiple_breakdowns_have_max_limit).
    if (multiple.length > MAX_BREAKDOWNS) throw reject.invalid("breakdowns", `At most ${MAX_BREAKDOWNS} breakdowns are allowed.`);
    const parts = multiple.filter(isObject).map((b, i) => {
      const type = typeOf(b.type, `breakdowns__${i}__type`);
      const group = type === "group" ? groupBreakdownSource(b.group_type_index, `breakdowns__${i}__group_type_index`, ctx) : undefined;
      const part = partOf(readString(b, "property") ?? "", type, b.normalize_url === true || normalizeUrl, ctx, `breakdowns__${i}__property`, group);
      const bins = readNumber(b, "histogram_bin_count");
      return bins !== undefined && bins > 0 ? { ...part, bins: Math.floor(bins) } : part;
    });
    return { kind: "property", parts, multi: true, histogramBins: undefined };
  }
  const raw = decodeJsonish(filter.breakdown, "breakdown");
  if (raw === undefined || raw === null || raw === "" || (Array.isArray(raw) && raw.length === 0)) return undefined;
  const type = typeOf(filter.breakdown_type, "breakdown_type");
  if (type === "cohort") return { kind: "cohort", cohorts: cohortTargets(raw, ctx) };
  const keys = Array.isArray(raw) ? raw.map(stringForm) : [stringForm(raw)];
  const bins = readNumber(filter, "breakdown_histogram_bin_count");
  const group = type === "group" ? groupBreakdownSource(filter.breakdown_group_type_index, "breakdown_group_type_index", ctx) : undefined;
  return {
    kind: "property",
    parts: keys.map((key) => partOf(key, type, normalizeUrl, ctx, "breakdown", group)),
    multi: Array.isArray(raw),
    histogramBins: bins !== undefined && bins > 0 ? Math.floor(bins) : undefined,
  };
}

function partOf(key: string, type: PartType, normalizeUrl: boolean, ctx: BreakdownContext, attr: string, group?: GroupPropertiesOf): PropertyPart {
  if (group) return { key, source: "group", normalizeUrl, groupProperties: group };
  if (type === "session") return { key, source: "session", normalizeUrl, read: sessionRead(key, ctx, attr) };
  // A column of the event row (`distinct_id`, `event`, `$group_0`…; PostHog test_trends.py::test_breakdown_by_event_metadata).
  if (type === "event_metadata") {
    const read = metadataReader(key, ctx);
    return { key, source: "event", normalizeUrl, read: (event) => read(event) };
  }
  if (type === "hogql") return { key, source: "hogql", normalizeUrl, read: hogqlReader(key, attr, { now: ctx.now ?? 0, timezone: ctx.timezone, propertyTypes: ctx.propertyTypes?.(), timeLimitMs: ctx.queryTimeLimitMs }) };
  return { key, source: type === "person" ? "person" : "event", normalizeUrl };
}

/** A session property, from the project's sessions (derived once per data version by the caller's context). */
function sessionRead(key: string, ctx: BreakdownContext, attr: string): PropertyPart["read"] {
  if (UNDERIVED_SESSION_PROPERTIES.has(key)) throw reject.invalid(attr, `Session property "${key}" is not derived by this server.`);
  const sessions = ctx.sessions;
  if (!sessions) throw new Error("session breakdown without a session table in the analysis context");
  const read = sessionPropertyReader(key, sessions);
  if (!read) throw reject.invalid(attr, `"${key}" is not a session property (known: ${SESSION_PROPERTY_NAMES.join(", ")}).`);
  return read;
}

/** Legacy typo "events" means "event" (§2.5); types this mock does not model are a 400, not silence. */
function typeOf(value: unknown, attr: string): PartType {
  if (value === undefined || value === null || value === "" || value === "event" || value === "events") return "event";
  if (typeof value === "string" && (BREAKDOWN_TYPES as readonly string[]).includes(value)) return value as PartType;
  if (typeof value === "string" && NOT_MODELLED.has(value)) throw reject.invalid(attr, `Breakdown type "${value}" is not supported by this server.`);
  throw reject.invalid(attr, `"${String(value)}" is not a valid breakdown type.`);
}

function cohortTargets(raw: unknown, ctx: Pick<AnalysisContext, "cohorts">): CohortTarget[] {
  const ids = Array.isArray(raw) ? raw : [raw];
  return ids.map((id) => {
    if (id === "all" || id === 0 || id === "0") return { value: "all" as const, label: "all users", members: undefined };
    const numeric = Number(id);
    const members = cohortMembers(ctx.cohorts, numeric);
    if (!members) throw reject.invalid("breakdown", `Cohort ${String(id)} does not exist.`);
    return { value: numeric, label: ctx.cohorts.find((c) => c.id === numeric)!.name, members };
  });
}

/** The string form of one breakdown property; null when missing, JSON null or empty (§2.5). */
export function partValue(part: PropertyPart, event: EventRecord, person: PersonRecord | undefined): string | null {
  const raw = part.read
    ? part.read(event, person)
    : part.source === "person"
      ? personPropertyValue(person, part.key)
      : part.groupProperties
        ? part.groupProperties(event)?.[part.key]
        : eventProperty(event, part.key);
  return breakdownText(raw, part.normalizeUrl);
}

/** The string form of one raw breakdown value; null when missing, JSON null or empty. */
export function breakdownText(raw: unknown, normalize: boolean): string | null {
  if (raw === undefined || raw === null) return null;
  const text = normalize ? normalizeUrl(stringForm(raw)) : stringForm(raw);
  return text === "" ? null : text;
}

/** breakdown_normalize_url: query string, hash and trailing slashes go; an emptied path stays "/". */
export function normalizeUrl(url: string): string {
  const stripped = url.replace(/[?#].*$/s, "").replace(/\/+$/, "");
  return stripped === "" ? "/" : stripped;
}

export const cohortHas = (target: CohortTarget, person: PersonRecord | undefined): boolean =>
  target.members === undefined || (person !== undefined && target.members.has(person.id));
