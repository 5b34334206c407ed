import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlDatabase, type SqlDatabase } from "../../src/sql-engine/sql-database.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { CATEGORIES, CORPUS, WORKED_OUT, type CorpusCase } from "./hogql-corpus.cases.ts";
import { corpusFixture } from "./hogql-corpus.fixture.ts";

/**
 * The HogQL corpus (./hogql-corpus.cases.ts: real queries from posthog.com and PostHog's own tests, each cited)
 * through `POST /api/projects/1/query/` on the dataset of ./hogql-corpus.fixture.ts (its header lists every row),
 * each held against ClickHouse SQL written by hand in the way PostHog's printer prints it, run directly on a
 * `createSqlDatabase` over the same store (raw ClickHouse: not through the printer). The expectation is that
 * hand SQL's answer; `results` must equal it, and `columns` too where a case lists them (HogQL's naming rules).
 * Where the answer was also worked out by hand from the fixture's rows (WORKED_OUT), the hand SQL is held against
 * that first, so a mistake in it cannot pass unnoticed.
 *
 * Comparison rule: the hand SQL returns date-times already formatted as ISO 8601 in UTC
 * ('2024-03-04T08:00:00Z'), Dates as 'YYYY-MM-DD' and UUIDs as text, which is what the API's cells are in a UTC
 * project; the API's date-time cells are read with any all-zero fraction dropped and '+00:00' written 'Z', so
 * '2024-03-04T08:00:00.000Z' and '2024-03-04T08:00:00Z' compare equal. Everything else compares as JSON.
 * A case whose query fixes no row order compares its rows as a multiset.
 *
 * The queries only read, so one server serves the whole file. Cases the printer does not handle yet are listed
 * in KNOWN_GAPS with the printer's message and run as `it.fails`: when one starts passing, vitest says so and it
 * moves out of the list. `CORPUS_SHOW_GAPS=1 npx vitest run test/integration/hogql-corpus.test.ts` runs them as
 * ordinary tests, to read each one's current answer or error.
 */

/** Corpus cases the query API does not answer as PostHog would, by name, with the reason (the printer's message). */
export const KNOWN_GAPS: Readonly<Record<string, string>> = {
  "numbers(1, 4) table function": "refused by choice: no table function reaches ClickHouse, numbers() included (Table functions are not allowed: numbers(...)); PostHog's HogQL allows it (test_numbers_table)",
};

const P = "/api/projects/1";

/** One server (and one database over its store) per project time zone the corpus uses. */
const opened = new Map<string, Promise<{ s: TestServer; db: SqlDatabase }>>();
function serverFor(timezone = "UTC") {
  let got = opened.get(timezone);
  if (!got) {
    got = startTestServer(corpusFixture(timezone)).then((s) => ({ s, db: createSqlDatabase({ store: s.store, folder: null }) }));
    opened.set(timezone, got);
  }
  return got;
}
beforeAll(() => serverFor(), 120_000);
afterAll(async () => {
  for (const got of opened.values()) {
    const { s, db } = await got;
    await db.close();
    await s.close();
  }
});

const ISO_WITH_ZERO_FRACTION = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.0+)?(?:Z|\+00:00)$/;
const cell = (v: unknown): unknown => (Array.isArray(v) ? v.map(cell) : typeof v === "string" ? v.replace(ISO_WITH_ZERO_FRACTION, "$1Z") : v);
const rowsOf = (rows: unknown[][], unordered: boolean | undefined) => {
  const cells = rows.map((r) => r.map(cell));
  return unordered ? cells.map((r) => JSON.stringify(r)).sort() : cells;
};

function queryNode(c: CorpusCase) {
  return { kind: "HogQLQuery", query: c.hogql, ...(c.filters ? { filters: c.filters } : {}), ...(c.variables ? { variables: c.variables } : {}) };
}

async function runCase(c: CorpusCase) {
  const { s, db } = await serverFor(c.timezone);
  const want = await db.query(c.clickhouse);
  const worked = WORKED_OUT[c.name];
  if (worked) expect(rowsOf(want.rows, c.unordered), "the hand SQL against the answer worked out from the fixture").toEqual(rowsOf(worked, c.unordered));
  const res = await s.post(`${P}/query/`, { query: queryNode(c) });
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  expect(rowsOf(res.body.results, c.unordered)).toEqual(rowsOf(want.rows, c.unordered));
  if (c.columns) expect(res.body.columns).toEqual(c.columns);
}

describe("HogQL corpus through the query API", () => {
  it("covers every category and cites a source for every query", () => {
    expect(new Set(CORPUS.map((c) => c.category))).toEqual(new Set(CATEGORIES));
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    for (const c of CORPUS) expect(c.source, c.name).toMatch(/posthog\.com\/|PostHog\/posthog |ClickHouse/);
    expect(new Set(CORPUS.map((c) => c.name)).size).toBe(CORPUS.length);
    for (const name of [...Object.keys(KNOWN_GAPS), ...Object.keys(WORKED_OUT)]) expect(CORPUS.some((c) => c.name === name), name).toBe(true);
  });

  for (const category of CATEGORIES) {
    describe(category, () => {
      for (const c of CORPUS.filter((x) => x.category === category)) {
        // CORPUS_SHOW_GAPS=1 runs the known gaps as ordinary tests, to see what each one answers now.
        const test = KNOWN_GAPS[c.name] && !process.env.CORPUS_SHOW_GAPS ? it.fails : it;
        test(c.name, () => runCase(c), 60_000);
      }
    });
  }
});
