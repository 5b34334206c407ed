import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { parseCsv } from "../support/csv-parse.ts";
import { qs, scenario, startTestServer, type TestResponse, type TestServer } from "../support/server.ts";

/**
 * Bad input is never a silent 200 (issue 13): dates outside the grammar, unknown body fields, saved insights
 * that cannot be computed. On fixtures/scenarios/basic.json, clock frozen at 2024-03-05T12:00Z.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";

const pageviews = { events: [{ id: "$pageview", type: "events", order: 0 }] };
const steps = { events: ["$pageview", "signup"].map((id, order) => ({ id, type: "events", order })) };

function expect400(res: TestResponse, attr: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body).toMatchObject({ type: "validation_error", code: "invalid_input", attr });
}

describe("dates outside the grammar are a 400 naming the field", () => {
  const bad = ["banana", "2026-13-45", "last tuesday"];

  it.each(bad)("trend POST date_from %j", async (value) => {
    const res = await s.post(`${P}/insights/trend/`, { ...pageviews, date_from: value });
    expect400(res, "date_from");
    expect(res.body.detail).toContain("-7d");
  });

  it.each(bad)("trend GET date_to %j", async (value) => {
    expect400(await s.get(`${P}/insights/trend/?${qs({ ...pageviews, date_to: value })}`), "date_to");
  });

  it.each([
    ["stickiness", "/insights/trend/", { ...pageviews, insight: "STICKINESS", date_from: "banana" }, "date_from"],
    ["lifecycle", "/insights/trend/", { ...pageviews, insight: "LIFECYCLE", date_to: "2024-02-30" }, "date_to"],
    ["compare_to", "/insights/trend/", { ...pageviews, compare: true, compare_to: "last week" }, "compare_to"],
    ["funnel", "/insights/funnel/", { ...steps, date_from: "yesterday" }, "date_from"],
    ["correlation", "/insights/funnel/correlation/", { ...steps, date_to: "banana" }, "date_to"],
    ["paths", "/insights/path/", { date_from: "2024-03-01T99:00" }, "date_from"],
    ["date_to all", "/insights/trend/", { ...pageviews, date_to: "all" }, "date_to"],
  ])("%s", async (_name, path, body, attr) => {
    expect400(await s.post(`${P}${path}`, body), attr);
  });

  it("retention (GET only) checks date_to and the ignored date_from", async () => {
    expect400(await s.get(`${P}/insights/retention/?date_to=banana`), "date_to");
    expect400(await s.get(`${P}/insights/retention/?date_from=banana`), "date_from");
  });

  it("actors endpoints", async () => {
    const point = { ...pageviews, date_from: "2024-03-01", date_to: "2024-13-01", entity_id: "$pageview", entity_type: "events" };
    expect400(await s.get(`${P}/persons/trends/?${qs(point)}`), "date_to");
    expect400(await s.get(`${P}/persons/funnel/?${qs({ ...steps, date_from: "soon", funnel_step: 1 })}`), "date_from");
  });

  it("events after/before and the properties timeline", async () => {
    expect400(await s.get(`${P}/events/?after=banana`), "after");
    expect400(await s.get(`${P}/events/?before=2024-13-45`), "before");
    expect400(await s.get(`${P}/persons/1/properties_timeline/?date_from=last%20tuesday`), "date_from");
  });

  it("accepts the whole grammar, and an empty or null value is the default", async () => {
    // The scenario's pageviews: 3 on Mar 1, 1 on Mar 2, 1 on Mar 3; wStart is Sunday Mar 3.
    const starts = ["2024-03-01", "2024-3-1", "2024-03-01T00:00:00Z", "2024-03-01 00:00", "-4d", "-1w", "-1m", "-120h", "-1q", "-1y", "mStart", "yStart", "-1mStart", "qStart", "all"];
    for (const [date_from, count] of [...starts.map((v) => [v, 5] as const), ["wStart", 1] as const]) {
      const res = await s.post(`${P}/insights/trend/`, { ...pageviews, date_from, date_to: "2024-03-03" });
      expect([date_from, res.status, res.body.result?.[0].count]).toEqual([date_from, 200, count]);
    }
    const byDefault = await s.post(`${P}/insights/trend/`, { ...pageviews, date_from: null, date_to: "" });
    expect(byDefault.body.result[0].days[0]).toBe("2024-02-27");
  });
});

describe("CSV cells agree with the document", () => {
  it("writes booleans as True/False and prefixes formula-like cells, but not plain numbers", async () => {
    const properties = { flag: true, off: false, delta: -3, frac: "-0.5", rel: "-30d", plus: "+1", at: "@SUM(A1)", eq: "=1+1", tab: "\tx", plain: "a-b" };
    expect((await s.patch(`${P}/persons/2/`, { properties })).status).toBe(200);
    const res = await s.get(`${P}/persons/?format=csv`);
    const [header, ...rows] = parseCsv(res.text);
    const row = rows.find((r) => r[header!.indexOf("id")] === "2")!;
    const cellOf = (key: string) => row[header!.indexOf(`properties.${key}`)];
    expect(Object.keys(properties).map((k) => [k, cellOf(k)])).toEqual([
      ["flag", "True"],
      ["off", "False"],
      ["delta", "-3"],
      ["frac", "-0.5"],
      ["rel", "'-30d"],
      ["plus", "'+1"],
      ["at", "'@SUM(A1)"],
      ["eq", "'=1+1"],
      ["tab", "'\tx"],
      ["plain", "a-b"],
    ]);
  });
});

describe("unknown fields of analysis bodies are a 400 naming the field", () => {
  it.each([
    ["trend", "/insights/trend/", { ...pageviews, date_form: "-90d" }, "date_form"],
    ["funnel", "/insights/funnel/", { ...steps, funnel_windw_interval: 7 }, "funnel_windw_interval"],
    ["correlation", "/insights/funnel/correlation/", { ...steps, funnel_correlation_typo: "events" }, "funnel_correlation_typo"],
    ["paths", "/insights/path/", { step_limits: 5 }, "step_limits"],
    ["persons of a funnel step", "/persons/funnel/?funnel_step=1", { ...steps, funnel_stepp: 1 }, "funnel_stepp"],
    ["persons of a path", "/persons/path/", { path_start_keyy: "1_/" }, "path_start_keyy"],
  ])("%s", async (_name, path, body, attr) => {
    const res = await s.post(`${P}${path}`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr });
    expect(res.body.detail).toContain(attr);
  });

  it("while the query forms ignore a parameter they do not take, as the real service ignores any (the request log notes it)", async () => {
    const res = await s.get(`${P}/insights/trend/?${qs({ ...pageviews, date_from: "2024-03-01", date_to: "2024-03-03", date_form: "-90d" })}`);
    expect([res.status, res.body.result[0].data]).toEqual([200, [3, 1, 1]]);
    const logged = await callControl(s.base, "GET", "/requests/?limit=1");
    expect(logged.body.results[0].notes).toEqual(['query parameter "date_form" ignored: insights_trend_retrieve does not take it (the real service ignores it too); did you mean "date_from"?']);
  });

  it("accepts the keys the web app sends that the mock does not model", async () => {
    const display = { hidden_legend_keys: { "0": true }, show_legend: true, show_values_on_series: false, aggregation_axis_format: "numeric", decimal_places: 2, new_entity: [], from_dashboard: 3, client_query_id: "q-1" };
    const trend = await s.post(`${P}/insights/trend/`, { ...pageviews, date_from: "2024-03-01", date_to: "2024-03-03", ...display });
    expect([trend.status, trend.body.result[0].data]).toEqual([200, [3, 1, 1]]);
    const funnel = await s.post(`${P}/insights/funnel/`, { ...steps, date_from: "2024-03-01", layout: "horizontal", funnel_correlation_type: "events", funnel_advanced: true });
    expect(funnel.status).toBe(200);
    const persons = await s.post(`${P}/persons/funnel/`, { ...steps, date_from: "2024-03-01", funnel_step: 2 });
    expect(persons.status).toBe(200);
  });
});

describe("saved insights: filters and query are validated as the analysis endpoints validate them", () => {
  it.each([
    ["an unknown kind", { filters: { insight: "PIE" } }, "filters__insight"],
    ["an unknown math", { filters: { insight: "TRENDS", events: [{ id: "$pageview", math: "mode" }] } }, "filters__events__0__math"],
    ["a bad interval", { filters: { events: [{ id: "$pageview" }], interval: "fortnight" } }, "filters__interval"],
    ["a bad date, even without series", { filters: { insight: "TRENDS", date_from: "banana" } }, "filters__date_from"],
    ["a one-step funnel", { filters: { insight: "FUNNELS", events: [{ id: "$pageview", order: 0 }] } }, "filters__events"],
    ["a bad retention period", { filters: { insight: "RETENTION", period: "Decade" } }, "filters__period"],
    ["a query with a bad date", { query: { kind: "InsightVizNode", source: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: { date_from: "last tuesday" } } } }, "query"],
    ["a query with an unknown math", { query: { kind: "TrendsQuery", series: [{ kind: "EventsNode", event: "$pageview", math: "mode" }] } }, "query__series__0__math"],
  ])("create with %s is a 400 naming the field, and nothing is stored", async (_name, body, attr) => {
    const before = (await s.get(`${P}/insights/`)).body.count;
    const res = await s.post(`${P}/insights/`, { name: "Bad", ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body).toMatchObject({ type: "validation_error", attr });
    expect((await s.get(`${P}/insights/`)).body.count).toBe(before);
  });

  it("a PATCH with a bad filter is a 400 and leaves the insight as it was", async () => {
    const before = (await s.get(`${P}/insights/1/`)).body;
    const res = await s.patch(`${P}/insights/1/`, { name: "Renamed", filters: { ...before.filters, events: [{ id: "$pageview", math: "avg_nothing" }] } });
    expect([res.status, res.body.attr]).toEqual([400, "filters__events__0__math"]);
    const after = (await s.get(`${P}/insights/1/`)).body;
    expect([after.name, after.filters]).toEqual([before.name, before.filters]);
  });

  it("stores the free-form keys the real service stores, drafts, and query nodes the mock does not compute", async () => {
    const filters = { insight: "TRENDS", events: [{ id: "$pageview", type: "events", order: 0 }], date_from: "2024-03-01", date_to: "2024-03-03", evnets: [], some_future_key: { a: 1 } };
    const created = await s.post(`${P}/insights/`, { name: "Free-form", filters });
    expect(created.status).toBe(201);
    expect(created.body.filters).toEqual(filters);
    expect((await s.get(`${P}/insights/${created.body.id}/`)).body.result[0].data).toEqual([3, 1, 1]);
    expect((await s.post(`${P}/insights/`, { filters: { insight: "funnels" } })).status).toBe(201);
    expect((await s.post(`${P}/insights/`, { filters: { insight: "PATHS" } })).status).toBe(201);
    expect((await s.post(`${P}/insights/`, { query: { kind: "DataTableNode", source: { kind: "EventsQuery", select: ["*"] } } })).status).toBe(201);
  });
});

describe("keys the analyses read are all in the closed schemas", () => {
  it("formulaNodes and formulas", async () => {
    const two = { events: [{ id: "$pageview", order: 0 }, { id: "signup", order: 1 }], date_from: "2024-03-01", date_to: "2024-03-03" };
    const nodes = await s.post(`${P}/insights/trend/`, { ...two, formulaNodes: [{ formula: "A+B", custom_name: "Both" }] });
    expect([nodes.status, nodes.body.result?.length]).toEqual([200, 1]);
    const formulas = await s.post(`${P}/insights/trend/`, { ...two, formulas: ["A", "B"] });
    expect([formulas.status, formulas.body.result?.length]).toEqual([200, 2]);
  });
});
