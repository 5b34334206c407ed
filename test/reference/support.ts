/**
 * Ports of PostHog's query-runner tests (posthog/hogql_queries/insights/…/test/): each test's data loaded as a
 * fixture document into a server of its own with the test's frozen clock, its query sent through the query API
 * (and, where the PostHog test uses one, the legacy filter form), and the numbers it asserts compared. The data and
 * the numbers are PostHog's; the code is ours. Every response is checked against the OpenAPI document (startTestServer).
 */
import type { FixtureDocument } from "../../src/store/fixture-document.ts";
import { OWNER_KEY, qs, startTestServer, type TestResponse, type TestServer } from "../support/server.ts";

export const P = "/api/projects/1";

/** One event as PostHog's tests create it (`_create_event`, `journeys_for`): a naive timestamp is UTC. */
export interface RefEvent {
  event: string;
  distinct_id: string;
  timestamp: string;
  properties?: Record<string, unknown>;
  /** The elements of an `$autocapture` event, as PostHog's elements chain string. */
  elements_chain?: string;
}

/** One person (`_create_person`): its distinct ids, properties and creation time. */
export interface RefPerson {
  distinct_ids: string[];
  properties?: Record<string, unknown>;
  created_at?: string;
}

export interface RefData {
  /** The test's frozen clock (`freeze_time`); naive is UTC. */
  now: string;
  /** The team's timezone (default UTC) and week start (0 Sunday, 1 Monday). */
  timezone?: string;
  weekStartDay?: 0 | 1;
  persons?: RefPerson[];
  events: RefEvent[];
  /** Further fixture collections as the fixture document takes them (cohorts, actions, groups, group types). */
  extra?: Partial<Pick<FixtureDocument, "cohorts" | "actions" | "groups">>;
  groupTypes?: { group_type_index: number; group_type: string }[];
  /** The team's test account filters (`filterTestAccounts`); PostHog's test team has none unless set. */
  testAccountFilters?: Record<string, unknown>[];
}

/** A naive PostHog timestamp ("2020-01-01 12:00:00", "2020-01-01") as ISO UTC; one with an offset is kept. */
export function isoOf(at: string): string {
  const iso = at.trim().replace(" ", "T");
  const full = /T/.test(iso) ? iso : `${iso}T00:00:00`;
  return /(Z|[+-]\d{2}:?\d{2})$/.test(full) ? new Date(full).toISOString() : new Date(`${full}Z`).toISOString();
}

/**
 * PostHog's `journeys_for`: per person (named by their distinct id), their events; persons get the properties
 * given for them. Events are `[event, timestamp, properties?]`.
 */
export function journeysFor(
  byPerson: Record<string, (readonly [string, string, Record<string, unknown>?])[]>,
  personProperties: Record<string, Record<string, unknown>> = {},
): Pick<RefData, "persons" | "events"> {
  const persons: RefPerson[] = [];
  const events: RefEvent[] = [];
  for (const [name, list] of Object.entries(byPerson)) {
    persons.push({ distinct_ids: [name], properties: personProperties[name] ?? {} });
    for (const [event, timestamp, properties] of list) events.push({ event, distinct_id: name, timestamp, properties });
  }
  return { persons, events };
}

/** One person of PostHog's `_create_events` helper: a distinct id, events as `[event, timestamps]`, properties every event carries. */
export interface SeriesData {
  distinct_id: string;
  events: [string, string[]][];
  properties: Record<string, unknown>;
}

/** `_create_events` (trends and stickiness tests): a person per entry, created at its first event and named by its distinct id (p1 with an email), its events carrying its properties. */
export function createEvents(data: SeriesData[]): Pick<RefData, "persons" | "events"> {
  const persons: RefPerson[] = [];
  const events: RefEvent[] = [];
  for (const person of data) {
    persons.push({
      distinct_ids: [person.distinct_id],
      properties: { name: person.distinct_id, ...(person.distinct_id === "p1" ? { email: "test@posthog.com" } : {}) },
      created_at: person.events[0]![1][0]!,
    });
    for (const [event, timestamps] of person.events) {
      for (const timestamp of timestamps) events.push({ event, distinct_id: person.distinct_id, timestamp, properties: person.properties });
    }
  }
  return { persons, events };
}

/** The fixture document of a test's data: one project, one user holding the owner key. */
export function referenceDocument(data: RefData): FixtureDocument {
  return {
    version: 1,
    now: isoOf(data.now),
    users: [{ id: 1, email: "test@posthog.test", first_name: "Test", distinct_id: "test-user", personal_api_keys: [OWNER_KEY] }],
    projects: [
      {
        id: "1",
        name: "Reference",
        timezone: data.timezone ?? "UTC",
        members: [1],
        ...(data.groupTypes ? { group_types: data.groupTypes } : {}),
        ...(data.testAccountFilters ? { test_account_filters: data.testAccountFilters } : {}),
      },
    ],
    persons: (data.persons ?? []).map((p, i) => ({ id: i + 1, project_id: "1", distinct_ids: p.distinct_ids, properties: p.properties ?? {}, ...(p.created_at ? { created_at: isoOf(p.created_at) } : {}) })),
    events: data.events.map((e) => ({ project_id: "1", event: e.event, distinct_id: e.distinct_id, timestamp: isoOf(e.timestamp), properties: e.properties ?? {}, ...(e.elements_chain ? { elements_chain: e.elements_chain } : {}) })),
    ...data.extra,
  } as FixtureDocument;
}

export interface Reference {
  server: TestServer;
  /** The query API's answer to a query node (status 200 asserted). */
  query<T = any>(node: Record<string, unknown>): Promise<T>;
  /** The query API's full response (for refusals). */
  queryResponse(node: Record<string, unknown>): Promise<TestResponse>;
  /** A legacy endpoint (`insights/trend`, …) with the filter as a query string (GET) or body (POST). */
  legacy(method: "GET" | "POST", path: string, filter: Record<string, unknown>): Promise<TestResponse>;
}

/** Starts a server over the test's data, runs `test` against it, and stops it. */
export async function withReference<T>(data: RefData, test: (ref: Reference) => Promise<T>): Promise<T> {
  const server = await startTestServer(referenceDocument(data));
  if (data.weekStartDay !== undefined) {
    const res = await server.patch(`${P}/`, { week_start_day: data.weekStartDay });
    if (res.status !== 200) throw new Error(`week_start_day: ${res.status} ${res.text}`);
  }
  const ref: Reference = {
    server,
    async query(node) {
      const res = await server.post(`${P}/query/`, { query: node });
      if (res.status !== 200) throw new Error(`query answered ${res.status}: ${res.text}`);
      return res.body;
    },
    queryResponse: (node) => server.post(`${P}/query/`, { query: node }),
    legacy: (method, path, filter) => (method === "GET" ? server.get(`${P}/${path}/?${qs(filter)}`) : server.post(`${P}/${path}/`, filter)),
  };
  try {
    return await test(ref);
  } finally {
    await server.close();
  }
}
