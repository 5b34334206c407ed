import { Session } from "chdb";
import { parseHogqlSelect } from "../../../src/hogql/parse.ts";
import { HOGQL_CLICKHOUSE_SETTINGS, printSelect, type PrintContext, type Printed } from "../../../src/hogql/printer/print.ts";

export const TEAM = 7;
export const OTHER_TEAM = 8;
export const NOW = Date.parse("2024-03-03T00:00:00Z");

export const baseCtx: PrintContext = { teamId: TEAM, timezone: "UTC", now: NOW, defaultLimit: 100, maxLimit: 50_000 };

export const print = (sql: string, ctx: Partial<PrintContext> = {}): Printed => printSelect(parseHogqlSelect(sql, "query"), { ...baseCtx, ...ctx });

/** The mirror's layout (the engine's tables), created in an in-memory chdb session for end-to-end checks. */
const DDL = [
  `CREATE TABLE events (team_id Int64, uuid UUID, event String, properties String, timestamp DateTime64(6, 'UTC'), distinct_id String, elements_chain String, person_id UUID, "$session_id" String, "$group_0" String, "$group_1" String, "$group_2" String, "$group_3" String, "$group_4" String, created_at DateTime64(6, 'UTC'), "mat_$browser" String DEFAULT replaceRegexpAll(JSONExtractRaw(properties, '$browser'), '^"|"$', '')) ENGINE = Memory`,
  `CREATE TABLE persons (team_id Int64, id UUID, created_at DateTime64(6, 'UTC'), properties String, is_identified Bool) ENGINE = Memory`,
  `CREATE TABLE person_distinct_ids (team_id Int64, distinct_id String, person_id UUID) ENGINE = Memory`,
  `CREATE TABLE groups (team_id Int64, "index" Int64, key String, created_at DateTime64(6, 'UTC'), properties String) ENGINE = Memory`,
  `CREATE TABLE sessions (team_id Int64, session_id String, distinct_id String, "$start_timestamp" DateTime64(6, 'UTC'), "$end_timestamp" DateTime64(6, 'UTC'), "$session_duration" Int64, "$entry_current_url" Nullable(String), "$end_current_url" Nullable(String), "$pageview_count" Int64, "$autocapture_count" Int64, "$is_bounce" Bool, "$channel_type" String) ENGINE = Memory`,
];

const ANN = "00000000-0000-0000-0000-00000000000a";
const BOB = "00000000-0000-0000-0000-00000000000b";
const EVE = "00000000-0000-0000-0000-00000000000e";

/**
 * Team 7: ann (plan pro, 2 distinct ids) and bob (plan free); team 8: eve, whose rows must never show.
 *   ann  a1  $pageview Chrome  2024-03-01 10:00  session s1
 *   ann  a1  purchase  amount 30  2024-03-01 11:00  session s1
 *   ann  a2  $pageview Safari  2024-03-02 09:00  session s2
 *   bob  b1  $pageview Chrome  2024-03-02 12:00  session s3
 *   bob  b1  purchase  amount 20  2024-03-02 13:00  (no $browser)
 *   bob  b1  $pageview (no $browser, $browser: null)  2024-03-02 23:30
 *   eve  e1  $pageview Chrome  2024-03-02 10:00  (team 8)
 */
const EVENTS: Array<[number, string, string, Record<string, unknown>, string, string, string]> = [
  [TEAM, "$pageview", "a1", { $browser: "Chrome" }, "2024-03-01 10:00:00", ANN, "s1"],
  [TEAM, "purchase", "a1", { amount: 30 }, "2024-03-01 11:00:00", ANN, "s1"],
  [TEAM, "$pageview", "a2", { $browser: "Safari" }, "2024-03-02 09:00:00", ANN, "s2"],
  [TEAM, "$pageview", "b1", { $browser: "Chrome" }, "2024-03-02 12:00:00", BOB, "s3"],
  [TEAM, "purchase", "b1", { amount: 20 }, "2024-03-02 13:00:00", BOB, ""],
  [TEAM, "$pageview", "b1", { $browser: null }, "2024-03-02 23:30:00", BOB, ""],
  [OTHER_TEAM, "$pageview", "e1", { $browser: "Chrome" }, "2024-03-02 10:00:00", EVE, "s9"],
];

const lit = (v: string) => `'${v.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

function insertRows(s: Session): void {
  // a1's events belong to the company acme (group type 0); so does eve's, in team 8, to a group of team 8.
  const group0 = (did: string) => (did === "a1" ? "acme" : did === "e1" ? "acme" : "");
  const events = EVENTS.map(([team, event, did, props, ts, pid, sid], i) => `(${team}, '00000000-0000-0000-0001-${String(i).padStart(12, "0")}', ${lit(event)}, ${lit(JSON.stringify(props))}, '${ts}', ${lit(did)}, '', '${pid}', ${lit(sid)}, '${group0(did)}', '', '', '', '', '${ts}')`);
  s.query(`INSERT INTO events (team_id, uuid, event, properties, timestamp, distinct_id, elements_chain, person_id, "$session_id", "$group_0", "$group_1", "$group_2", "$group_3", "$group_4", created_at) VALUES ${events.join(", ")}`);
  s.query(`INSERT INTO persons VALUES (${TEAM}, '${ANN}', '2024-02-01 00:00:00', '{"plan":"pro","email":"ann@example.com"}', true), (${TEAM}, '${BOB}', '2024-02-15 00:00:00', '{"plan":"free"}', false), (${OTHER_TEAM}, '${EVE}', '2024-02-01 00:00:00', '{"plan":"secret"}', true)`);
  s.query(`INSERT INTO person_distinct_ids VALUES (${TEAM}, 'a1', '${ANN}'), (${TEAM}, 'a2', '${ANN}'), (${TEAM}, 'b1', '${BOB}'), (${OTHER_TEAM}, 'e1', '${EVE}')`);
  s.query(`INSERT INTO groups VALUES (${TEAM}, 0, 'acme', '2024-01-01 00:00:00', '{"name":"Acme"}'), (${OTHER_TEAM}, 0, 'acme', '2024-01-01 00:00:00', '{"name":"Evil"}'), (${TEAM}, 1, 'acme', '2024-01-01 00:00:00', '{"name":"Not a company"}')`);
  s.query(`INSERT INTO sessions VALUES (${TEAM}, 's1', 'a1', '2024-03-01 10:00:00', '2024-03-01 11:00:00', 3600, 'https://x.io/', 'https://x.io/buy', 1, 0, false, 'Direct'), (${TEAM}, 's2', 'a2', '2024-03-02 09:00:00', '2024-03-02 09:00:00', 0, 'https://x.io/', 'https://x.io/', 1, 0, true, 'Organic Search'), (${TEAM}, 's3', 'b1', '2024-03-02 12:00:00', '2024-03-02 12:00:00', 0, NULL, NULL, 1, 0, true, 'Direct'), (${OTHER_TEAM}, 's9', 'e1', '2024-03-02 10:00:00', '2024-03-02 10:05:00', 300, NULL, NULL, 1, 0, false, 'Direct')`);
}

let session: Session | undefined;

/** One chdb session per test file with the fixture rows (team 7, plus team 8 that must never be reachable). */
export function engine(): Session {
  if (!session) {
    session = new Session();
    for (const [name, value] of Object.entries(HOGQL_CLICKHOUSE_SETTINGS)) session.query(`SET ${name} = ${value}`);
    for (const ddl of DDL) session.query(ddl);
    insertRows(session);
  }
  return session;
}

export function closeEngine(): void {
  session?.cleanup();
  session = undefined;
}

/** Runs SQL on the fixture tables and returns its rows as arrays. */
export function rows(sql: string): unknown[][] {
  const out = JSON.parse(engine().query(sql, "JSONCompact")) as { data: unknown[][] };
  return out.data;
}

/** Prints HogQL and runs it; the rows the answer holds (the printed limit + 1 row only tells hasMore). */
export function runHogql(hogql: string, ctx: Partial<PrintContext> = {}): unknown[][] {
  const printed = print(hogql, ctx);
  return rows(printed.clickhouse).slice(0, printed.limit);
}
