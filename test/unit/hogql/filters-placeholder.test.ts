import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileHogql } from "../../../src/hogql/evaluate.ts";
import { loadHogql, parseHogqlExpr, setParseTimeLimit } from "../../../src/hogql/parse.ts";
import type { PrintContext } from "../../../src/hogql/printer/print.ts";
import { closeEngine, engine, print, runHogql } from "./printer-support.ts";

/**
 * PostHog's posthog/hogql/test/test_filters.py (TestFilters), ported: `{filters}`, `{filters.dateRange.from}` and
 * `{filters.dateRange.to}` as posthog/hogql/filters.py replaces them. Where PostHog asserts the printed HogQL, these
 * assert what it means over a small dataset of their dates (which events or groups the condition keeps), run on
 * the SQL engine, plus the refusals' messages. The rows are team 9's, added to printer-support's tables here.
 *
 * Events (UTC), by name, with distinct id and properties; mia (mia@posthog.com, random_uuid 123) is m1, ola
 * (ola@example.com) is o1:
 *   e1 2020-02-01 23:00:00  o1
 *   e2 2020-02-02 00:00:00  m1  random_uuid 123   (exactly 2020-02-02 in UTC)
 *   e3 2020-02-02 05:00:00  o1  random_uuid 123   (exactly 2020-02-02 in New York)
 *   e4 2020-02-03 12:00:00  m1  random_uuid 456
 *   e5 2020-02-03 23:59:59  o1                    (exactly 2020-02-03 23:59:59 in UTC)
 *   e6 2020-02-04 03:00:00  m1                    (2020-02-03 22:00 in New York)
 *   e7 2020-02-04 04:59:59  o1                    (exactly 2020-02-03 23:59:59 in New York)
 * Groups (type 0), by key: hogwarts created 2020-02-01 12:00 (PostHog, Magic), posthog 2020-02-02 00:00
 * (PostHog, Software), acme 2020-02-03 23:59:59 (Acme, Software).
 */
const TEAM = 9;
const MIA = "00000000-0000-0000-0009-00000000000a";
const OLA = "00000000-0000-0000-0009-00000000000b";

const EVENTS: Array<[name: string, timestamp: string, distinctId: string, properties: Record<string, string>]> = [
  ["e1", "2020-02-01 23:00:00", "o1", {}],
  ["e2", "2020-02-02 00:00:00", "m1", { random_uuid: "123" }],
  ["e3", "2020-02-02 05:00:00", "o1", { random_uuid: "123" }],
  ["e4", "2020-02-03 12:00:00", "m1", { random_uuid: "456" }],
  ["e5", "2020-02-03 23:59:59", "o1", {}],
  ["e6", "2020-02-04 03:00:00", "m1", {}],
  ["e7", "2020-02-04 04:59:59", "o1", {}],
];

function insertTeam9(): void {
  const s = engine();
  const person = (did: string) => (did === "m1" ? MIA : OLA);
  const events = EVENTS.map(([name, ts, did, props], i) => `(${TEAM}, '00000000-0000-0000-0009-${String(i).padStart(12, "0")}', '${name}', '${JSON.stringify(props)}', '${ts}', '${did}', '', '${person(did)}', '', '', '', '', '', '', '${ts}')`);
  s.query(`INSERT INTO events (team_id, uuid, event, properties, timestamp, distinct_id, elements_chain, person_id, "$session_id", "$group_0", "$group_1", "$group_2", "$group_3", "$group_4", created_at) VALUES ${events.join(", ")}`);
  s.query(`INSERT INTO persons VALUES (${TEAM}, '${MIA}', '2020-01-01 00:00:00', '{"email":"mia@posthog.com","random_uuid":"123"}', true), (${TEAM}, '${OLA}', '2020-01-01 00:00:00', '{"email":"ola@example.com"}', true)`);
  s.query(`INSERT INTO person_distinct_ids VALUES (${TEAM}, 'm1', '${MIA}'), (${TEAM}, 'o1', '${OLA}')`);
  s.query(
    `INSERT INTO groups VALUES (${TEAM}, 0, 'hogwarts', '2020-02-01 12:00:00', '{"company_name":"PostHog","industry":"Magic"}'), ` +
      `(${TEAM}, 0, 'posthog', '2020-02-02 00:00:00', '{"company_name":"PostHog","industry":"Software"}'), ` +
      `(${TEAM}, 0, 'acme', '2020-02-03 23:59:59', '{"company_name":"Acme","industry":"Software"}')`,
  );
}

beforeAll(async () => {
  setParseTimeLimit(20_000);
  await loadHogql();
  insertTeam9();
});
afterAll(closeEngine);

const NOW = Date.parse("2020-03-01T00:00:00Z");
type Filters = NonNullable<PrintContext["filters"]>;

/** The first column of every row the query returns, over team 9. */
function column(hogql: string, ctx: Partial<PrintContext> = {}): unknown[] {
  return runHogql(hogql, { teamId: TEAM, now: NOW, ...ctx }).map((row) => row[0]);
}

const eventsKept = (filters: Filters | undefined, timezone = "UTC") => column("SELECT event FROM events WHERE {filters} ORDER BY timestamp", { filters, timezone });
const groupsKept = (filters: Filters | undefined) => column("SELECT key FROM groups WHERE {filters} ORDER BY created_at", { filters });
const printTeam9 = (hogql: string, filters?: Filters) => print(hogql, { teamId: TEAM, now: NOW, filters });

const ALL_EVENTS = ["e1", "e2", "e3", "e4", "e5", "e6", "e7"];
const ALL_GROUPS = ["hogwarts", "posthog", "acme"];
const FROM_0202 = { dateRange: { date_from: "2020-02-02" } };
const TO_0202 = { dateRange: { date_to: "2020-02-02" } };
const FROM_0202_TO_0203_END = { dateRange: { date_from: "2020-02-02", date_to: "2020-02-03 23:59:59" } };
const NOT_IN_SELECT_FROM = "Cannot use 'filters' placeholder in a SELECT clause that does not select from";

describe("test_filters.py: {filters} over events", () => {
  it("test_replace_filters_empty: no placeholder, empty filters and no filters keep every event", () => {
    expect(column("SELECT event FROM events ORDER BY timestamp")).toEqual(ALL_EVENTS);
    expect(eventsKept({})).toEqual(ALL_EVENTS);
    expect(eventsKept(undefined)).toEqual(ALL_EVENTS);
  });

  const dateRangeCases: Array<[string, Filters, string, string[]]> = [
    // greaterOrEquals(timestamp, 2020-02-02 00:00): e2 sits on the bound and is kept
    ["date_from", FROM_0202, "UTC", ["e2", "e3", "e4", "e5", "e6", "e7"]],
    // less(timestamp, 2020-02-02 00:00): the bound is exclusive, e2 is dropped
    ["date_to", TO_0202, "UTC", ["e1"]],
    // from 02-02 00:00 up to, not including, 02-03 23:59:59 (e5)
    ["both", FROM_0202_TO_0203_END, "UTC", ["e2", "e3", "e4"]],
    // the same text in New York: 02-02 05:00Z up to, not including, 02-04 04:59:59Z (e7)
    ["both, team in America/New_York", FROM_0202_TO_0203_END, "America/New_York", ["e3", "e4", "e5", "e6"]],
  ];
  it.each(dateRangeCases)("test_replace_filters_date_range: %s", (_name, filters, timezone, want) => {
    expect(eventsKept(filters, timezone)).toEqual(want);
  });

  it("test_replace_filters_date_range_with_timezone: a date_to with Z stays UTC in a New York team", () => {
    // 02-02 00:00 New York (05:00Z, e3) up to, not including, 02-03 23:59:59Z (e5)
    expect(eventsKept({ dateRange: { date_from: "2020-02-02", date_to: "2020-02-03 23:59:59Z" } }, "America/New_York")).toEqual(["e3", "e4"]);
  });

  it("filters.py: date_from `all` is no lower bound", () => {
    expect(eventsKept({ dateRange: { date_from: "all", date_to: "2020-02-02" } })).toEqual(["e1"]);
  });

  it("test_replace_filters_event_property: equals(properties.random_uuid, '123')", () => {
    expect(eventsKept({ properties: [{ key: "random_uuid", operator: "exact", value: "123", type: "event" }] })).toEqual(["e2", "e3"]);
  });

  it("test_replace_filters_person_property: equals(person.properties.random_uuid, '123'), and with the event property", () => {
    const person = { key: "random_uuid", operator: "exact", value: "123", type: "person" as const };
    const event = { key: "random_uuid", operator: "exact", value: "123", type: "event" as const };
    expect(eventsKept({ properties: [person] })).toEqual(["e2", "e4", "e6"]);
    expect(eventsKept({ properties: [event, person] })).toEqual(["e2"]);
  });

  it("test_replace_filters_test_accounts: notILike(toString(person.properties.email), '%posthog.com%')", () => {
    const testAccountFilters = [{ key: "email", type: "person" as const, value: "posthog.com", operator: "not_icontains" }];
    expect(column("SELECT event FROM events WHERE {filters} ORDER BY timestamp", { testAccountFilters, filters: { filterTestAccounts: true } })).toEqual(["e1", "e3", "e5", "e7"]);
  });
});

describe("test_filters.py: {filters} over groups (created_at, the group's own properties)", () => {
  const companyPostHog = { key: "company_name", operator: "exact", value: "PostHog", type: "group" as const, group_type_index: 0 };
  const industrySoftware = { key: "industry", operator: "exact", value: "Software", type: "group" as const, group_type_index: 0 };

  it("test_replace_filters_groups_empty", () => {
    expect(column("SELECT key FROM groups ORDER BY created_at")).toEqual(ALL_GROUPS);
    expect(groupsKept({})).toEqual(ALL_GROUPS);
    expect(groupsKept(undefined)).toEqual(ALL_GROUPS);
  });

  it("test_replace_filters_groups_date_range: from inclusive, to exclusive, on created_at", () => {
    expect(groupsKept(FROM_0202)).toEqual(["posthog", "acme"]);
    expect(groupsKept(TO_0202)).toEqual(["hogwarts"]);
    // acme was created exactly at date_to
    expect(groupsKept(FROM_0202_TO_0203_END)).toEqual(["posthog"]);
  });

  it("test_replace_filters_groups_property", () => {
    expect(groupsKept({ properties: [companyPostHog] })).toEqual(["hogwarts", "posthog"]);
  });

  it("test_replace_filters_groups_multiple_properties", () => {
    expect(groupsKept({ properties: [companyPostHog, industrySoftware] })).toEqual(["posthog"]);
  });

  it("test_replace_filters_groups_date_and_properties", () => {
    expect(groupsKept({ ...FROM_0202, properties: [companyPostHog] })).toEqual(["posthog"]);
  });
});

describe("test_filters.py: refusals", () => {
  it("test_raises_when_filters_empty_and_not_events_or_sessions", () => {
    expect(() => printTeam9("SELECT id FROM persons WHERE {filters}")).toThrow(NOT_IN_SELECT_FROM);
    expect(() => printTeam9("SELECT id FROM persons WHERE {filters}", {})).toThrow(NOT_IN_SELECT_FROM);
  });

  it("test_raises_when_filters_and_not_events_or_sessions, test_raises_when_filters_and_not_supported_table_includes_groups", () => {
    expect(() => printTeam9("SELECT id FROM persons WHERE {filters}", FROM_0202)).toThrow(NOT_IN_SELECT_FROM);
  });

  it("filters.py: over sessions alone only session properties filter", () => {
    const filters = { properties: [{ key: "random_uuid", value: "123", type: "event" as const }] };
    expect(() => printTeam9("SELECT session_id FROM sessions WHERE {filters}", filters)).toThrow("Can only use session properties in a filter when selecting from only the sessions table.");
  });

  it.each(["filters.dateRange.from", "filters.dateRange.to"])("test_date_range_placeholder_nested_in_function_without_date_range_raises: {%s}", (placeholder) => {
    const hogql = `SELECT toStartOfDay({${placeholder}}) FROM events`;
    const message = `The \`{${placeholder}}\` placeholder must be used directly`;
    expect(() => printTeam9(hogql, {})).toThrow(message);
    // The in-process evaluator (no filters ever reach it) refuses it with the same words.
    expect(() => compileHogql(parseHogqlExpr(`toStartOfDay({${placeholder}})`, "select"), "select", { now: NOW })).toThrow(message);
  });

  it("test_raises_for_unsupported_filters_placeholder", () => {
    expect(() => printTeam9("SELECT dateTrunc({filters.interval}, timestamp) FROM events WHERE {filters}", {})).toThrow("Unsupported filters placeholder `{filters.interval}`");
  });
});

describe("test_filters.py: a set bound resolves anywhere", () => {
  it("test_date_range_placeholder_nested_in_function_with_date_range_resolves: toStartOfDay(2020-02-02 00:00)", () => {
    expect(column("SELECT toStartOfDay({filters.dateRange.from}) FROM events", { filters: FROM_0202 })).toEqual(ALL_EVENTS.map(() => "2020-02-02 00:00:00"));
  });
});
