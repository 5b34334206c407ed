/**
 * Issue 37, point 3: every field of an insight query node is honoured or refused, never silently ignored.
 *
 * The walk reads the OpenAPI document. Each field it lists for a kind (recursively: sub-filters, date range,
 * breakdown, series and exclusion nodes, retention entities) either changes the answer when set (a probe below
 * sets it; a listed field without a probe fails the test) or is marked `x-numbers-unchanged` (display settings,
 * bookkeeping), and then must leave the numbers as they are. Every field PostHog's schema has for these models
 * that the document does not list is refused with a 400 naming it. The field names of PostHog's schema are in
 * posthog-query-fields.json (facts read from posthog/schema/*.py).
 */
import { readFileSync } from "node:fs";
import { isDeepStrictEqual as isEqual } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BREAKDOWN_FIELDS, SUB_FILTER_FIELDS } from "../../src/analyses/filter-to-query.ts";
import { P, referenceDocument, type RefData } from "../reference/support.ts";
import { contract } from "../support/contract.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import posthog from "./posthog-query-fields.json" with { type: "json" };

type Loose = Record<string, any>;
type Schema = Loose;

const at = (day: number, hour = 12, minute = 0) => `2024-03-0${day}T${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}:00Z`;
const page = (distinct_id: string, timestamp: string, properties: Loose = {}) => ({ event: "$pageview", distinct_id, timestamp, properties });
const ev = (event: string, distinct_id: string, timestamp: string, properties: Loose = {}) => ({ event, distinct_id, timestamp, properties });
const org = (key: string) => ({ $groups: { organization: key } });

/** Small data on which every honoured field makes a difference: four persons (one a test account), two organizations, a week. */
const DATA: RefData = {
  now: "2024-03-08 12:00:00",
  persons: [
    { distinct_ids: ["u1"], properties: { email: "a@acme.com", plan: "pro", age: 30 }, created_at: "2024-02-01" },
    { distinct_ids: ["u2"], properties: { email: "b@other.com", plan: "free", age: 40 }, created_at: "2024-03-01" },
    { distinct_ids: ["u3"], properties: { email: "c@other.com", plan: "pro", age: 50 }, created_at: "2024-03-02" },
    { distinct_ids: ["u4"], properties: { email: "t@example.com", plan: "free", age: 60 }, created_at: "2024-03-01" },
  ],
  groupTypes: [{ group_type_index: 0, group_type: "organization" }],
  extra: {
    groups: [
      { project_id: "1", group_type_index: 0, group_key: "org:a", created_at: "2024-02-01T00:00:00Z", properties: { industry: "retail" } },
      { project_id: "1", group_type_index: 0, group_key: "org:b", created_at: "2024-02-01T00:00:00Z", properties: { industry: "tech" } },
    ],
    actions: [{ project_id: "1", id: 1, name: "Signed up", steps: [{ event: "signup" }] }],
    cohorts: [{ project_id: "1", id: 1, name: "Paying", person_ids: [1, 3] }],
  } as RefData["extra"],
  testAccountFilters: [{ key: "email", value: "@example.com", operator: "not_icontains", type: "person" }],
  events: [
    page("u1", at(1, 10), { $browser: "Chrome", $current_url: "https://x.test/a/", amount: 10, $session_id: "s1", ...org("org:a") }),
    ev("signup", "u1", at(1, 10, 5), { $browser: "Chrome", $session_id: "s1", ...org("org:a") }),
    ev("$pageleave", "u1", at(1, 10, 10), { $browser: "Chrome", $session_id: "s1" }),
    ev("purchase", "u1", at(1, 10, 30), { $browser: "Chrome", amount: 20, $session_id: "s1", ...org("org:a") }),
    page("u1", at(3, 9), { $browser: "Chrome", $current_url: "https://x.test/b?q=1", amount: 1, ...org("org:a") }),
    page("u1", at(5, 9), { $browser: "Chrome", $current_url: "https://x.test/a/", amount: 2, ...org("org:a") }),
    page("u2", at(1, 11), { $browser: "Safari", $current_url: "https://x.test/b", amount: 3, ...org("org:b") }),
    ev("signup", "u2", at(2, 8), { $browser: "Edge", ...org("org:b") }),
    page("u2", at(2, 12), { $browser: "Safari", $current_url: "https://x.test/c", amount: 4, ...org("org:b") }),
    page("u2", at(6, 11, 50), { $browser: "Safari", $current_url: "https://x.test/c", amount: 4, ...org("org:b") }),
    ev("purchase", "u2", at(6, 12), { $browser: "Safari", amount: 5, ...org("org:b") }),
    page("u3", at(2, 9), { $browser: "Firefox", $current_url: "https://x.test/a/", amount: 5, ...org("org:a") }),
    ev("signup", "u3", at(2, 10), { $browser: "Firefox", ...org("org:a") }),
    page("u3", at(4, 9), { $browser: "Firefox", $current_url: "https://x.test/b", amount: 6 }),
    page("u3", at(4, 9, 30), { $browser: "Firefox", $current_url: "https://x.test/c", amount: 7 }),
    ev("$pageleave", "u3", at(4, 10), { $browser: "Firefox" }),
    page("u4", at(1, 9), { $browser: "Chrome", $current_url: "https://x.test/a/", amount: 100 }),
    ev("signup", "u4", at(1, 9, 5), { $browser: "Chrome" }),
    ev("purchase", "u4", at(1, 9, 10), { $browser: "Chrome", amount: 50 }),
  ],
};

const WEEK = { date_from: "2024-03-01", date_to: "2024-03-07" };
const series = (...events: string[]) => events.map((event) => ({ kind: "EventsNode", event }));
const chrome = [{ key: "$browser", value: "Chrome", operator: "exact", type: "event" }];

/** The query every probe of a kind starts from. */
const BASE: Readonly<Record<string, Loose>> = {
  TrendsQuery: { kind: "TrendsQuery", series: series("$pageview"), dateRange: WEEK, interval: "day" },
  FunnelsQuery: { kind: "FunnelsQuery", series: series("$pageview", "signup", "purchase"), dateRange: WEEK },
  RetentionQuery: {
    kind: "RetentionQuery",
    dateRange: WEEK,
    retentionFilter: { targetEntity: { id: "$pageview", type: "events" }, returningEntity: { id: "$pageview", type: "events" }, period: "Day", totalIntervals: 7 },
  },
  PathsQuery: { kind: "PathsQuery", dateRange: WEEK, pathsFilter: { includeEventTypes: ["$pageview", "custom_event"] } },
  StickinessQuery: { kind: "StickinessQuery", series: series("$pageview"), dateRange: WEEK, interval: "day" },
  LifecycleQuery: { kind: "LifecycleQuery", series: series("$pageview"), dateRange: WEEK, interval: "day" },
};

/**
 * Per kind, per field path (`a.b`, `series[].x` for every series node): the part merged into the base query that
 * sets the field, with whatever else the field needs to matter. The answer with the part is compared with the
 * answer with the same part less that one field.
 */
const COMMON_PROBES: Readonly<Record<string, Loose>> = {
  "dateRange.date_from": { dateRange: { date_from: "2024-03-02" } },
  "dateRange.date_to": { dateRange: { date_to: "2024-03-02" } },
  "dateRange.explicitDate": { dateRange: { date_from: "2024-03-01T10:00:00Z", date_to: "2024-03-04T09:15:00Z", explicitDate: true } },
  properties: { properties: chrome },
  filterTestAccounts: { filterTestAccounts: true },
  aggregation_group_type_index: { aggregation_group_type_index: 0 },
};
const SERIES_PROBES: Readonly<Record<string, Loose>> = {
  "series[].event": { series: [{ kind: "EventsNode", event: "signup" }] },
  "series[].id": { series: [{ kind: "ActionsNode", id: 1 }] },
  "series[].name": { series: [{ kind: "EventsNode", event: "$pageview", name: "Page views" }] },
  "series[].custom_name": { series: [{ kind: "EventsNode", event: "$pageview", custom_name: "Views" }] },
  "series[].math": { series: [{ kind: "EventsNode", event: "$pageview", math: "dau" }] },
  "series[].math_property": { series: [{ kind: "EventsNode", event: "$pageview", math: "sum", math_property: "amount" }] },
  "series[].math_property_type": { series: [{ kind: "EventsNode", event: "$pageview", math: "sum", math_property: "age", math_property_type: "person_properties" }] },
  "series[].math_hogql": { series: [{ kind: "EventsNode", event: "$pageview", math: "hogql", math_hogql: "sum(properties.amount)" }] },
  "series[].math_group_type_index": { series: [{ kind: "EventsNode", event: "$pageview", math: "unique_group", math_group_type_index: 0 }] },
  "series[].properties": { series: [{ kind: "EventsNode", event: "$pageview", properties: chrome }] },
  "series[].fixedProperties": { series: [{ kind: "EventsNode", event: "$pageview", fixedProperties: chrome }] },
};
const BREAKDOWN_PROBES: Readonly<Record<string, Loose>> = {
  "breakdownFilter.breakdown": { breakdownFilter: { breakdown: "$browser" } },
  "breakdownFilter.breakdown_type": { breakdownFilter: { breakdown: "plan", breakdown_type: "person" } },
  "breakdownFilter.breakdown_limit": { breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 } },
  "breakdownFilter.breakdown_hide_other_aggregation": { breakdownFilter: { breakdown: "$browser", breakdown_limit: 1, breakdown_hide_other_aggregation: true } },
  "breakdownFilter.breakdown_histogram_bin_count": { breakdownFilter: { breakdown: "amount", breakdown_histogram_bin_count: 2 } },
  "breakdownFilter.breakdown_normalize_url": { breakdownFilter: { breakdown: "$current_url", breakdown_normalize_url: true } },
  "breakdownFilter.breakdown_group_type_index": { breakdownFilter: { breakdown: "industry", breakdown_type: "group", breakdown_group_type_index: 0 } },
  "breakdownFilter.breakdowns": { breakdownFilter: { breakdowns: [{ property: "$browser", type: "event" }] } },
};

/** u1 leaves a page between signing up and buying. */
const leave = { kind: "EventsNode", event: "$pageleave", funnelFromStep: 1, funnelToStep: 2 };

/** A funnel's step probes: the series probe as the second step after page views. */
const FUNNEL_SERIES_PROBES: Readonly<Record<string, Loose>> = Object.fromEntries(
  Object.entries(SERIES_PROBES).map(([path, part]) => [path, { series: [{ kind: "EventsNode", event: "$pageview" }, ...part.series] }]),
);

const PROBES: Readonly<Record<string, Readonly<Record<string, Loose>>>> = {
  TrendsQuery: {
    ...COMMON_PROBES,
    ...SERIES_PROBES,
    ...BREAKDOWN_PROBES,
    interval: { interval: "week" },
    "compareFilter.compare": { compareFilter: { compare: true } },
    "compareFilter.compare_to": { compareFilter: { compare: true, compare_to: "-1d" } },
    "trendsFilter.display": { trendsFilter: { display: "ActionsLineGraphCumulative" } },
    "trendsFilter.formula": { series: series("$pageview", "signup"), trendsFilter: { formula: "A+B" } },
    "trendsFilter.formulas": { series: series("$pageview", "signup"), trendsFilter: { formulas: ["A-B"] } },
    "trendsFilter.formulaNodes": { series: series("$pageview", "signup"), trendsFilter: { formulaNodes: [{ formula: "A*2" }] } },
    "trendsFilter.smoothingIntervals": { trendsFilter: { smoothingIntervals: 3 } },
    "trendsFilter.breakdown_histogram_bin_count": { breakdownFilter: { breakdown: "amount" }, trendsFilter: { breakdown_histogram_bin_count: 2 } },
  },
  FunnelsQuery: {
    ...COMMON_PROBES,
    ...FUNNEL_SERIES_PROBES,
    "series[].math": { series: [{ kind: "EventsNode", event: "signup" }, { kind: "EventsNode", event: "$pageview", math: "first_time_for_user" }] },
    ...BREAKDOWN_PROBES,
    "series[].event": { series: series("$pageview", "$pageleave") },
    "series[].id": { series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "ActionsNode", id: 1 }] },
    interval: { funnelsFilter: { funnelVizType: "trends" }, interval: "week" },
    "funnelsFilter.funnelVizType": { funnelsFilter: { funnelVizType: "time_to_convert" } },
    "funnelsFilter.funnelOrderType": { funnelsFilter: { funnelOrderType: "strict" } },
    "funnelsFilter.funnelWindowInterval": { funnelsFilter: { funnelWindowInterval: 40, funnelWindowIntervalUnit: "minute" } },
    "funnelsFilter.funnelWindowIntervalUnit": { funnelsFilter: { funnelWindowIntervalUnit: "minute" } },
    "funnelsFilter.funnelFromStep": { funnelsFilter: { funnelVizType: "time_to_convert", funnelFromStep: 1 } },
    "funnelsFilter.funnelToStep": { funnelsFilter: { funnelVizType: "time_to_convert", funnelToStep: 1 } },
    "funnelsFilter.binCount": { funnelsFilter: { funnelVizType: "time_to_convert", binCount: 10 } },
    "funnelsFilter.breakdownAttributionType": { breakdownFilter: { breakdown: "$browser" }, funnelsFilter: { breakdownAttributionType: "all_events" } },
    "funnelsFilter.breakdownAttributionValue": { breakdownFilter: { breakdown: "$browser" }, funnelsFilter: { breakdownAttributionType: "step", breakdownAttributionValue: 1 } },
    "funnelsFilter.exclusions[].event": { funnelsFilter: { exclusions: [leave] } },
    "funnelsFilter.exclusions[].id": { series: series("$pageview", "purchase"), funnelsFilter: { exclusions: [{ kind: "ActionsNode", id: 1, funnelFromStep: 0, funnelToStep: 1 }] } },
    "funnelsFilter.exclusions[].properties": { funnelsFilter: { exclusions: [{ ...leave, properties: [{ key: "$browser", value: "Safari", operator: "exact", type: "event" }] }] } },
    "funnelsFilter.exclusions[].fixedProperties": { funnelsFilter: { exclusions: [{ ...leave, fixedProperties: [{ key: "$browser", value: "Safari", operator: "exact", type: "event" }] }] } },
    "funnelsFilter.exclusions[].funnelFromStep": { funnelsFilter: { exclusions: [leave] } },
    "funnelsFilter.exclusions[].funnelToStep": { funnelsFilter: { exclusions: [leave] } },
    "funnelsFilter.funnelAggregateByHogQL": { funnelsFilter: { funnelAggregateByHogQL: "properties.$session_id" } },
    // Signing up optional: step two's time becomes the page view → purchase gap, step three's none.
    "series[].optionalInFunnel": { series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "signup", optionalInFunnel: true }, { kind: "EventsNode", event: "purchase" }] },
  },
  RetentionQuery: {
    ...COMMON_PROBES,
    "breakdownFilter.breakdown": { breakdownFilter: { breakdown: "$browser" } },
    "breakdownFilter.breakdown_type": { breakdownFilter: { breakdown: "plan", breakdown_type: "person" } },
    "breakdownFilter.breakdown_limit": { breakdownFilter: { breakdown: "$browser", breakdown_limit: 1 } },
    "breakdownFilter.breakdowns": { breakdownFilter: { breakdowns: [{ property: "$browser", type: "event" }] } },
    "retentionFilter.targetEntity.id": { retentionFilter: { targetEntity: { id: "signup", type: "events" } } },
    "retentionFilter.targetEntity.type": { retentionFilter: { targetEntity: { id: 1, type: "actions" } } },
    "retentionFilter.targetEntity.kind": { retentionFilter: { targetEntity: { id: 1, kind: "ActionsNode" } } },
    "retentionFilter.targetEntity.name": { retentionFilter: { targetEntity: { id: "$pageview", type: "events", name: "Views" } } },
    "retentionFilter.targetEntity.custom_name": { retentionFilter: { targetEntity: { id: "$pageview", type: "events", custom_name: "Views" } } },
    "retentionFilter.targetEntity.order": { retentionFilter: { targetEntity: { id: "$pageview", type: "events", order: 1 } } },
    "retentionFilter.targetEntity.properties": { retentionFilter: { targetEntity: { id: "$pageview", type: "events", properties: chrome } } },
    "retentionFilter.returningEntity.id": { retentionFilter: { returningEntity: { id: "purchase", type: "events" } } },
    "retentionFilter.returningEntity.type": { retentionFilter: { returningEntity: { id: 1, type: "actions" } } },
    "retentionFilter.returningEntity.kind": { retentionFilter: { returningEntity: { id: 1, kind: "ActionsNode" } } },
    "retentionFilter.returningEntity.name": { retentionFilter: { returningEntity: { id: "$pageview", type: "events", name: "Views" } } },
    "retentionFilter.returningEntity.custom_name": { retentionFilter: { returningEntity: { id: "$pageview", type: "events", custom_name: "Views" } } },
    "retentionFilter.returningEntity.order": { retentionFilter: { returningEntity: { id: "$pageview", type: "events", order: 1 } } },
    "retentionFilter.returningEntity.properties": { retentionFilter: { returningEntity: { id: "$pageview", type: "events", properties: chrome } } },
    "retentionFilter.retentionType": { retentionFilter: { retentionType: "retention_first_time" } },
    "retentionFilter.period": { retentionFilter: { period: "Week" } },
    "retentionFilter.totalIntervals": { retentionFilter: { totalIntervals: 3 } },
    "retentionFilter.minimumOccurrences": { retentionFilter: { minimumOccurrences: 2 } },
    "retentionFilter.cumulative": { retentionFilter: { cumulative: true } },
    "retentionFilter.retentionCustomBrackets": { retentionFilter: { retentionCustomBrackets: [2, 4] } },
    "retentionFilter.aggregationType": { retentionFilter: { aggregationType: "sum", aggregationProperty: "amount" } },
    "retentionFilter.aggregationProperty": { retentionFilter: { aggregationType: "sum", aggregationProperty: "amount" } },
    "retentionFilter.aggregationPropertyType": { retentionFilter: { aggregationType: "sum", aggregationProperty: "age", aggregationPropertyType: "person" } },
    "retentionFilter.timeWindowMode": { retentionFilter: { timeWindowMode: "24_hour_windows" } },
  },
  PathsQuery: {
    ...COMMON_PROBES,
    "dateRange.date_to": { dateRange: { date_to: "2024-03-05" } },
    properties: { properties: [{ key: "email", value: "acme", operator: "icontains", type: "person" }] },
    "pathsFilter.includeEventTypes": { pathsFilter: { includeEventTypes: ["custom_event"] } },
    "pathsFilter.pathsHogQLExpression": { pathsFilter: { includeEventTypes: ["hogql"], pathsHogQLExpression: "properties.$browser" } },
    "pathsFilter.startPoint": { pathsFilter: { startPoint: "signup" } },
    "pathsFilter.endPoint": { pathsFilter: { endPoint: "signup" } },
    "pathsFilter.stepLimit": { pathsFilter: { stepLimit: 2 } },
    "pathsFilter.edgeLimit": { pathsFilter: { edgeLimit: 2 } },
    "pathsFilter.minEdgeWeight": { pathsFilter: { minEdgeWeight: 2 } },
    "pathsFilter.maxEdgeWeight": { pathsFilter: { maxEdgeWeight: 1 } },
    "pathsFilter.excludeEvents": { pathsFilter: { excludeEvents: ["signup"] } },
    "pathsFilter.pathGroupings": { pathsFilter: { pathGroupings: ["https://x.test/*"] } },
    "pathsFilter.localPathCleaningFilters": { pathsFilter: { localPathCleaningFilters: [{ regex: "/[abc]", alias: "/page" }] } },
  },
  StickinessQuery: {
    ...COMMON_PROBES,
    ...SERIES_PROBES,
    "series[].math": { series: [{ kind: "EventsNode", event: "$pageview", math: "unique_group", math_group_type_index: 0 }] },
    "series[].math_hogql": { series: [{ kind: "EventsNode", event: "$pageview", math: "hogql", math_hogql: "properties.$browser" }] },
    interval: { interval: "week" },
    intervalCount: { intervalCount: 2 },
    "compareFilter.compare": { compareFilter: { compare: true } },
    "compareFilter.compare_to": { compareFilter: { compare: true, compare_to: "-1d" } },
    "stickinessFilter.stickinessCriteria": { stickinessFilter: { stickinessCriteria: { operator: "gte", value: 2 } } },
    "stickinessFilter.computedAs": { stickinessFilter: { computedAs: "cumulative" } },
  },
  LifecycleQuery: {
    ...COMMON_PROBES,
    ...SERIES_PROBES,
    interval: { interval: "week" },
  },
};

/**
 * Fields a kind reads nothing from, in the real service as here (said on the field's or the kind's schema in the
 * document): a series' `name` (labels come from the event, `custom_name` from the user), a funnel step's maths
 * other than first-time, stickiness' and lifecycle's property maths (they count actors), retention's explicit date
 * (its window follows from date_to and the intervals) and its entities' labels.
 */
const PROPERTY_MATHS = ["series[].math_property", "series[].math_property_type", "series[].math_hogql"];
const ENTITY_LABELS = ["name", "custom_name", "order"].flatMap((field) => [`retentionFilter.targetEntity.${field}`, `retentionFilter.returningEntity.${field}`]);
const UNREAD: Readonly<Record<string, readonly string[]>> = {
  TrendsQuery: ["series[].name"],
  FunnelsQuery: ["series[].name", ...PROPERTY_MATHS, "series[].math_group_type_index", "funnelsFilter.exclusions[].name", "funnelsFilter.exclusions[].custom_name"],
  StickinessQuery: ["series[].name", "series[].math_property", "series[].math_property_type"],
  LifecycleQuery: ["series[].name", "series[].custom_name", "dateRange.explicitDate", ...PROPERTY_MATHS, "series[].math", "series[].math_group_type_index"],
  RetentionQuery: ["dateRange.explicitDate", ...ENTITY_LABELS],
};

/** PostHog's models whose fields sit at each path of a kind's node. */
const POSTHOG_MODELS_AT: Readonly<Record<string, Readonly<Record<string, string[]>>>> = {
  TrendsQuery: { "": ["TrendsQuery"], trendsFilter: ["TrendsFilter"], breakdownFilter: ["BreakdownFilter"], compareFilter: ["CompareFilter"], dateRange: ["DateRange"], "series[]": ["EventsNode", "ActionsNode"] },
  FunnelsQuery: { "": ["FunnelsQuery"], funnelsFilter: ["FunnelsFilter"], breakdownFilter: ["BreakdownFilter"], dateRange: ["DateRange"], "series[]": ["EventsNode", "ActionsNode"], "funnelsFilter.exclusions[]": ["FunnelExclusionEventsNode"] },
  RetentionQuery: { "": ["RetentionQuery"], retentionFilter: ["RetentionFilter"], breakdownFilter: ["BreakdownFilter"], dateRange: ["DateRange"], "retentionFilter.targetEntity": ["RetentionEntity"] },
  PathsQuery: { "": ["PathsQuery"], pathsFilter: ["PathsFilter"], dateRange: ["DateRange"] },
  StickinessQuery: { "": ["StickinessQuery"], stickinessFilter: ["StickinessFilter"], compareFilter: ["CompareFilter"], dateRange: ["DateRange"], "series[]": ["EventsNode", "ActionsNode"] },
  LifecycleQuery: { "": ["LifecycleQuery"], lifecycleFilter: ["LifecycleFilter"], dateRange: ["DateRange"], "series[]": ["EventsNode", "ActionsNode"] },
};
const SUB_FILTER_OF: Readonly<Record<string, string>> = {
  TrendsQuery: "trendsFilter",
  FunnelsQuery: "funnelsFilter",
  RetentionQuery: "retentionFilter",
  PathsQuery: "pathsFilter",
  StickinessQuery: "stickinessFilter",
  LifecycleQuery: "lifecycleFilter",
};

/** The object schema of a property (through `anyOf`/`oneOf` alternatives), or undefined for a leaf. */
function objectSchemaOf(schema: Schema): Schema | undefined {
  if (schema.properties && Object.keys(schema.properties).length > 0) return schema;
  for (const alternative of [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
    const found = objectSchemaOf(alternative);
    if (found) return found;
  }
  return undefined;
}

interface Field {
  path: string;
  schema: Schema;
}

/** Every leaf field of a node schema, with its path; property filters are leaves (their own schema is checked elsewhere). */
function leavesOf(schema: Schema, prefix = ""): Field[] {
  const out: Field[] = [];
  for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    if (name === "kind" || name === "properties" || name === "fixedProperties") {
      if (name !== "kind") out.push({ path, schema: property });
      continue;
    }
    const items = property.items ? objectSchemaOf(property.items) : undefined;
    const object = objectSchemaOf(property);
    if (items && items.properties?.kind) out.push(...leavesOf(items, `${path}[]`));
    else if (object && object.additionalProperties === false && !property["x-numbers-unchanged"]) out.push(...leavesOf(object, path));
    else out.push({ path, schema: property });
  }
  return out;
}

/** The property names listed at `path` (`""` the node, `series[]` a series node). */
function namesAt(schema: Schema, path: string): Set<string> {
  let current: Schema | undefined = schema;
  for (const part of path ? path.split(".") : []) {
    const name = part.replace(/\[\]$/, "");
    const property: Schema | undefined = current?.properties?.[name];
    current = property && (part.endsWith("[]") ? objectSchemaOf(property.items ?? {}) : objectSchemaOf(property));
  }
  return new Set(Object.keys(current?.properties ?? {}));
}

const isObject = (value: unknown): value is Loose => typeof value === "object" && value !== null && !Array.isArray(value);
function merge(base: Loose, part: Loose): Loose {
  const out: Loose = { ...base };
  for (const [key, value] of Object.entries(part)) out[key] = isObject(value) && isObject(base[key]) ? merge(base[key], value) : value;
  return out;
}
/** `part` less the field at `path` (in every series node for `series[].x`). */
function without(part: Loose, path: string): Loose {
  const [head, ...rest] = path.split(".");
  const name = head!.replace(/\[\]$/, "");
  if (!(name in part)) return part;
  const out = { ...part };
  if (rest.length === 0) delete out[name];
  else if (head!.endsWith("[]")) out[name] = (part[name] as Loose[]).map((node) => without(node, rest.join(".")));
  else out[name] = without(part[name], rest.join("."));
  return out;
}
/** A node of the list `name` to set a field in when the base has none (an exclusion needs its steps). */
const newNode = (name: string): Loose => (name === "exclusions" ? { kind: "EventsNode", event: "$pageleave", funnelFromStep: 0, funnelToStep: 1 } : { kind: "EventsNode", event: "$pageview" });

/** `base` with `value` set at `path` (in the first series node for `series[].x`). */
function setAt(base: Loose, path: string, value: unknown): Loose {
  const [head, ...rest] = path.split(".");
  const name = head!.replace(/\[\]$/, "");
  const out = { ...base };
  if (rest.length === 0) out[name] = value;
  else if (head!.endsWith("[]")) out[name] = [setAt((base[name] as Loose[] | undefined)?.[0] ?? newNode(name), rest.join("."), value), ...((base[name] as Loose[] | undefined)?.slice(1) ?? [])];
  else out[name] = setAt(isObject(base[name]) ? base[name] : {}, rest.join("."), value);
  return out;
}

/** A value the schema accepts, for fields whose value does not matter (display settings, refused fields). */
function sampleOf(schema: Schema): unknown {
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum.find((v: unknown) => v !== null);
  if (types.includes("boolean")) return true;
  if (types.includes("number") || types.includes("integer")) return 1;
  if (types.includes("string")) return "x";
  if (types.includes("array")) return [];
  if (types.includes("object")) return {};
  return "x";
}

let server: TestServer;
let schemas: Record<string, Schema>;
beforeAll(async () => {
  server = await startTestServer(referenceDocument(DATA));
  schemas = (await contract()).definition.components!.schemas as Record<string, Schema>;
});
afterAll(() => server?.close());

const ask = (query: Loose) => server.post(`${P}/query/`, { query });
/** The answer's results less the links to actor lists (`people_url`…), which echo every field of the request. */
function withoutLinks(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLinks);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => !/_urls?$/.test(key)).map(([key, v]) => [key, withoutLinks(v)]));
}
/** The numbers alone: without the series each result echoes (`action`), which repeats the request's own words. */
function numbersOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(numbersOf);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== "action").map(([key, v]) => [key, numbersOf(v)]));
}
async function results(query: Loose): Promise<unknown> {
  const res = await ask(query);
  expect(res.status, `${JSON.stringify(query)} → ${res.text}`).toBe(200);
  return withoutLinks(res.body.results);
}
/** The answer without a field whose absence makes the request incomplete (a property math without its property) is the base's. */
async function resultsOrBaseline(query: Loose, baseline: unknown): Promise<unknown> {
  const res = await ask(query);
  return res.status === 400 ? baseline : withoutLinks(res.body.results);
}

describe.each(Object.keys(BASE))("%s: every field is honoured or refused", (kind) => {
  it("each field the document lists changes the answer when set, or is marked as changing no number", async () => {
    const schema = schemas[kind]!;
    const baseline = await results(BASE[kind]!);
    const unprobed: string[] = [];
    const ignored: string[] = [];
    const changed: string[] = [];
    for (const { path, schema: field } of leavesOf(schema)) {
      if (field["x-numbers-unchanged"] || UNREAD[kind]?.includes(path)) {
        if (!isEqual(numbersOf(await results(setAt(BASE[kind]!, path, sampleOf(field)))), numbersOf(baseline))) changed.push(path);
        continue;
      }
      const part = PROBES[kind]![path];
      if (!part) unprobed.push(path);
      else if (isEqual(await results(merge(BASE[kind]!, part)), await resultsOrBaseline(merge(BASE[kind]!, without(part, path)), baseline))) ignored.push(path);
    }
    expect({ unprobed, ignored, changed }, `${kind}: fields without a probe, probes that change nothing, unchanged-marked fields that change numbers`).toEqual({ unprobed: [], ignored: [], changed: [] });
  });

  it("each field of PostHog's schema the document does not list is a 400 naming it, and is said in differences.yaml", async () => {
    const differences = readFileSync(new URL("../../openapi/differences.yaml", import.meta.url), "utf8");
    const accepted: string[] = [];
    const unsaid: string[] = [];
    for (const [path, models] of Object.entries(POSTHOG_MODELS_AT[kind]!)) {
      const listed = namesAt(schemas[kind]!, path);
      for (const model of models) {
        for (const name of (posthog.models as Record<string, string[]>)[model]!) {
          if (listed.has(name)) continue;
          const fieldPath = path ? `${path}.${name}` : name;
          const res = await ask(setAt(BASE[kind]!, fieldPath, "x"));
          if (res.status !== 400 || res.body.attr !== `query__${fieldPath.replace(/\[\]/g, "__0").replace(/\./g, "__")}`) accepted.push(`${fieldPath}: ${res.status} ${res.text.slice(0, 160)}`);
          if (!differences.includes(`${kind}.${fieldPath.replace(/\[\]/g, "")}`)) unsaid.push(fieldPath);
        }
      }
    }
    expect({ accepted, unsaid }, `${kind}: PostHog fields not refused with their name, or not said in differences.yaml`).toEqual({ accepted: [], unsaid: [] });
  });

  it("a field no version of the schema has is a 400 naming it, at the top, in the sub-filter and in a series node", async () => {
    for (const path of ["notAField", `${SUB_FILTER_OF[kind]}.notAField`, ...(BASE[kind]!.series ? ["series[].notAField"] : [])]) {
      const res = await ask(setAt(BASE[kind]!, path, 1));
      expect(res.status, `${kind} ${path}: ${res.text}`).toBe(400);
      expect(res.body.attr).toBe(`query__${path.replace(/\[\]/g, "__0").replace(/\./g, "__")}`);
    }
  });

  it("a legacy filter converts to a node of exactly the document's sub-filter and breakdown fields", () => {
    expect(new Set(SUB_FILTER_FIELDS[kind])).toEqual(namesAt(schemas[kind]!, SUB_FILTER_OF[kind]!));
    const breakdown = namesAt(schemas[kind]!, "breakdownFilter");
    expect(new Set(BREAKDOWN_FIELDS[kind] ?? [])).toEqual(breakdown);
  });
});

describe("the web app's wrapper", () => {
  it("an InsightVizNode takes its display fields and refuses others, and its source is held to the kind's schema", async () => {
    const source = BASE.TrendsQuery!;
    const baseline = await results(source);
    const listed = namesAt(schemas.InsightVizNode!, "");
    for (const name of posthog.models.InsightVizNode) {
      if (name === "kind" || name === "source") continue;
      expect(listed.has(name), `InsightVizNode.${name} is listed`).toBe(true);
      expect(await results({ kind: "InsightVizNode", source, [name]: sampleOf(schemas.InsightVizNode!.properties[name]) })).toEqual(baseline);
    }
    const misplaced = await ask({ kind: "InsightVizNode", source: { ...source, stepLimit: 3 } });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.attr).toBe("query__source__stepLimit");
  });

  it("a saved insight's query is held to the same schema: the field is named and nothing is stored", async () => {
    const before = await server.get(`${P}/insights/`);
    const res = await server.post(`${P}/insights/`, { name: "Misplaced", query: { kind: "InsightVizNode", source: { ...BASE.PathsQuery, stepLimit: 3 } } });
    expect(res.status).toBe(400);
    expect(res.body.attr).toBe("query__source__stepLimit");
    expect((await server.get(`${P}/insights/`)).body.count).toBe(before.body.count);
  });
});
