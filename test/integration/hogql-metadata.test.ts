import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * HogQLMetadata through the query API (issue 41, point 3), on fixtures/scenarios/basic.json. Cases ported from
 * PostHog/posthog posthog/hogql/test/test_metadata.py (named on each), with their messages and offsets; they hold
 * because this server parses with PostHog's own grammar (@posthog/hogql-parser). Every response is validated
 * against the document by the test client.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const E = "/api/environments/1";
const metadata = (query: Record<string, unknown>) => s.post(`${E}/query/`, { query: { kind: "HogQLMetadata", ...query } });
const select = (query: string, extra: Record<string, unknown> = {}) => metadata({ language: "hogQL", query, ...extra });
/** test_metadata.py `_expr`: an expression checked as a column of `select * from <table>`. */
const expr = (query: string, table = "events") => metadata({ language: "hogQLExpr", query, sourceQuery: { kind: "HogQLQuery", query: `select * from ${table}` } });
const error = (message: string, start: number | null, end: number | null) => ({ message, start, end, fix: null });

describe("HogQLMetadata: valid text", () => {
  it("test_metadata_valid_expr_select: a SELECT is valid as hogQL, an expression as hogQLExpr", async () => {
    const res = await select("select 1");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ query: "select 1", isValid: true, errors: [], warnings: [], notices: [], table_names: [], ch_table_names: [], isUsingIndices: null });
    expect((await expr("timestamp")).body).toMatchObject({ isValid: true, query: "timestamp", errors: [] });
  });

  it("test_union_all_does_not_crash", async () => {
    const res = await select("SELECT events.event FROM events UNION ALL SELECT events.event FROM events WHERE 1 = 2");
    expect(res.body).toMatchObject({ isValid: true, errors: [], table_names: ["events"], ch_table_names: ["events"] });
  });

  it("names the tables a query reads, CTEs left out (metadata.py get_table_names)", async () => {
    const res = await select("with buyers as (select distinct_id from events where event = 'purchase') select count() from persons p join person_distinct_ids d on d.person_id = p.id where d.distinct_id in (select distinct_id from buyers)");
    expect(res.body.isValid).toBe(true);
    expect([...res.body.table_names].sort()).toEqual(["events", "person_distinct_ids", "persons"]);
  });

  it("accepts the date-range placeholders, with and without filters", async () => {
    const text = "select count() from events where timestamp >= {filters.dateRange.from} and timestamp < {filters.dateRange.to}";
    expect((await select(text)).body).toMatchObject({ isValid: true, errors: [] });
    expect((await select(text, { filters: { dateRange: { date_from: "-7d" } } })).body).toMatchObject({ isValid: true, errors: [] });
  });

  it("test_hog_program: a Hog program that parses is valid (parsed only here)", async () => {
    expect((await metadata({ language: "hog", query: "let i := 3" })).body).toMatchObject({ isValid: true, errors: [] });
  });
});

describe("HogQLMetadata: errors with where they are", () => {
  it("test_metadata_valid_expr_select: syntax errors of each language, with the parser's messages and spans", async () => {
    expect((await expr("select 1")).body).toMatchObject({ isValid: false, query: "select 1", errors: [error("extraneous input '1' expecting <EOF>", 7, 8)] });
    expect((await select("timestamp")).body).toMatchObject({
      isValid: false,
      query: "timestamp",
      errors: [error("mismatched input 'timestamp' expecting {SELECT, WITH, '{', '(', '<'}", 0, 9)],
      table_names: [],
      ch_table_names: null,
    });
  });

  it("test_metadata_expr_parse_error", async () => {
    expect((await expr("1 as true")).body).toMatchObject({ isValid: false, errors: [error('"true" cannot be an alias or identifier, as it\'s a reserved keyword', 0, 9)] });
  });

  it("test_metadata_expr_resolve_error: an unknown field, at its name", async () => {
    expect((await expr("1 + no_field")).body).toMatchObject({ isValid: false, query: "1 + no_field", errors: [error("Unable to resolve field: no_field", 4, 12)] });
  });

  it("test_metadata_table: fields resolve against the source query's table", async () => {
    expect((await expr("timestamp", "events")).body.isValid).toBe(true);
    expect((await expr("timestamp", "persons")).body.isValid).toBe(false);
    expect((await expr("is_identified", "events")).body.isValid).toBe(false);
    expect((await expr("is_identified", "persons")).body.isValid).toBe(true);
  });

  it("an unknown table and an unknown field in a SELECT, at their names, across lines", async () => {
    // "nosuchtable" is characters 16–27 of the text ("select *\n  from " is 16 characters)
    expect((await select("select *\n  from nosuchtable")).body).toMatchObject({ isValid: false, errors: [error('Unknown table "nosuchtable".', 16, 27)], table_names: ["nosuchtable"], ch_table_names: null });
    // "nosuchfield" is characters 7–18
    expect((await select("select nosuchfield from events")).body).toMatchObject({ isValid: false, errors: [error("Unable to resolve field: nosuchfield", 7, 18)], table_names: ["events"] });
  });

  it("an unknown function, over its call", async () => {
    const res = await select("select nosuchfunc(event) from events");
    expect(res.body.isValid).toBe(false);
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors[0]).toMatchObject({ start: 7, end: 24 });
    expect(res.body.errors[0].message).toMatch(/^Unsupported function call 'nosuchfunc\(\.\.\.\)'/);
  });

  it("an end of input where more was expected reads as such (metadata.py)", async () => {
    const res = await select("select event from events where");
    expect(res.body.isValid).toBe(false);
    expect(res.body.errors[0].start).toBe(30);
  });

  it("a date-range placeholder outside a comparison when the range is not set", async () => {
    const res = await select("select {filters.dateRange.from}");
    expect(res.body).toMatchObject({ isValid: false });
    expect(res.body.errors[0].message).toContain("The `{filters.dateRange.from}` placeholder must be used directly in a comparison");
  });

  it("test_hog_program_invalid (syntax only here): a Hog program that does not parse", async () => {
    const res = await metadata({ language: "hog", query: "let i := NONO(" });
    expect(res.body).toMatchObject({ isValid: false, errors: [error("no viable alternative at input '('", 14, 14)] });
  });

  it("a template's offsets count from its own text, not from the prefix the parser needs", async () => {
    // "{NONO(" opens at offset 10; the parser stops at the "(" (offset 15 of the text, 17 with its "F'")
    const res = await metadata({ language: "hogTemplate", query: "this is a {NONO(} string" });
    expect(res.body.isValid).toBe(false);
    expect(res.body.errors[0].start).toBe(15);
  });
});

describe("HogQLMetadata: bad requests", () => {
  it("is a 400 naming the field when the text or the language is missing or wrong", async () => {
    const noText = await metadata({ language: "hogQL" });
    expect(noText.status).toBe(400);
    expect(noText.body).toMatchObject({ type: "validation_error", attr: "query__query" });
    const badLanguage = await metadata({ language: "sql", query: "select 1" });
    expect(badLanguage.status).toBe(400);
    expect(badLanguage.body.attr).toMatch(/language/);
  });
});
