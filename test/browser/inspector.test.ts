import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchChromium, servePosthogPage, posthogPageHtml, QUIET_POSTHOG } from "../support/browser.ts";
import { callControl } from "../support/control-contract.ts";
import { chromium } from "../support/external-tools.ts";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * The inspector (`/_mock/ui/`) in Chromium, on the basic scenario: every view, posthog-js on a page of another
 * origin seen live, a flag forced from the page reaching posthog-js, a reset from the page emptying the log, each
 * chart kind drawing the numbers of its API answer, and screenshots of each view at desktop and phone widths.
 */
const UI_TIMEOUT = 30_000;
export const SCREENSHOTS = "/tmp/analytics-mock-inspector";
const WIDTHS = { desktop: 1280, phone: 390 } as const;
const P = "/api/projects/1";

let s: TestServer;
let browser: Browser;
let site: Awaited<ReturnType<typeof servePosthogPage>>;

const appPage = (token: string, apiHost: string) => posthogPageHtml({ title: "shop", token, apiHost, options: QUIET_POSTHOG, body: "<h1>shop</h1>" });

/** The page globals these tests read (the test's tsconfig has no DOM types). */
declare const window: { posthog: { __loaded?: boolean; get_distinct_id(): string; capture(event: string, properties?: object): void; reloadFeatureFlags(): void; getFeatureFlag(key: string): unknown } };
declare const document: { documentElement: { scrollWidth: number }; querySelectorAll(s: string): { length: number } };

async function inspector(view: string, width: number = WIDTHS.desktop): Promise<Page> {
  // A locale Intl accepts: without LANG, Chromium reports `en-US@posix`, which uPlot's number format refuses.
  const page = await browser.newPage({ viewport: { width, height: 860 }, locale: "en-US" });
  page.setDefaultTimeout(UI_TIMEOUT);
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  (page as Page & { problems: string[] }).problems = problems;
  await page.goto(`${s.base}/_mock/ui/#${view}`);
  return page;
}
const problemsOf = (page: Page) => (page as Page & { problems: string[] }).problems;

const shownRange = { date_from: "2024-02-28", date_to: "2024-03-05" };
const pageviews = { id: "$pageview", type: "events" };
/** The ad-hoc queries whose charts are photographed (the basic scenario's events). */
const SHOWN_QUERIES = {
  funnels: { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "signup" }, { kind: "EventsNode", event: "purchase" }], dateRange: shownRange },
  retention: { kind: "RetentionQuery", retentionFilter: { targetEntity: pageviews, returningEntity: pageviews, period: "Day", totalIntervals: 5 }, dateRange: shownRange },
  lifecycle: { kind: "LifecycleQuery", series: [{ kind: "EventsNode", event: "$pageview" }], dateRange: shownRange },
  paths: { kind: "PathsQuery", pathsFilter: { includeEventTypes: ["$pageview", "custom_event"] }, dateRange: shownRange },
};

/** A query the page runs ad hoc and the test sends to the API itself: both answers must be the same numbers. */
async function drawAdHoc(page: Page, kind: string, query: object) {
  await page.selectOption("select[name=kind]", kind);
  await page.fill("textarea[name=query]", JSON.stringify(query));
  await page.click("#run-query");
  await page.waitForSelector(`#chart[data-kind="${kind}"]`);
  const api = await s.post(`${P}/query/`, { query });
  expect(api.status).toBe(200);
  return api.body.results;
}
const attr = async (page: Page, name: string) => JSON.parse((await page.getAttribute("#chart", `data-${name}`))!);

chromium.describe("the inspector page in a browser", () => {
  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(scenario("basic"));
    site = await servePosthogPage(appPage(s.store.projects.get("1")!.api_token, s.base));
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  describe("live events", () => {
    it("shows events posthog-js sends from another page as they arrive, with their verdict, filters and detail", { timeout: 120_000 }, async () => {
      await callControl(s.base, "PUT", "/tracking_plan/", { events: { "clicked buy": { type: "object", required: ["price"], properties: { price: { type: "number" } } } }, additional_events: "allow" });
      const ui = await inspector("events");
      await ui.waitForSelector("#live-status:text('live')");
      const app = await browser.newPage();
      await app.goto(`${site.base}/checkout`);
      await app.waitForFunction(() => window.posthog?.__loaded === true);
      const distinctId = await app.evaluate(() => window.posthog.get_distinct_id());
      await app.evaluate(() => window.posthog.capture("clicked buy", { price: 12 }));
      await app.evaluate(() => window.posthog.capture("clicked buy", { price: "free" }));

      // No reload of the inspector: the rows come in through its long-poll.
      await ui.waitForSelector(`.event-row[data-event="clicked buy"][data-verdict="invalid"]`);
      await ui.waitForSelector(`.event-row[data-event="clicked buy"][data-verdict="valid"]`);
      expect(await ui.getAttribute(".event-row[data-event='clicked buy']", "data-distinct-id")).toBe(distinctId);
      // Newest first: the invalid one was sent last.
      const firstTwo = await ui.locator(".vrow").evaluateAll((rows) => rows.slice(0, 2).map((r) => (r as unknown as { dataset: { verdict: string } }).dataset.verdict));
      expect(firstTwo).toEqual(["invalid", "valid"]);

      await ui.selectOption("select[name=verdict]", "invalid");
      expect(await ui.locator(".vrow").count()).toBe(1);
      await ui.click(".vrow");
      const detail = await ui.textContent("#event-detail");
      expect(detail).toContain('"price": "free"');
      expect(detail).toContain("price");
      await ui.waitForSelector("#event-detail :text('POST /e/')").catch(async () => expect(await ui.textContent("#event-detail")).toMatch(/POST \/(e|i\/v0\/e|batch)\//));
      await ui.selectOption("select[name=verdict]", "");
      await ui.fill("input[name=event]", "$pageview");
      await ui.waitForSelector(`.event-row[data-event="$pageview"]`);
      expect(await ui.locator(".vrow[data-event='clicked buy']").count()).toBe(0);
      expect(problemsOf(ui)).toEqual([]);
      await app.close();
      await ui.close();
      await callControl(s.base, "DELETE", "/tracking_plan/");
    });

    it("keeps 10,000 events in a virtual list: a screenful of rows in the DOM", { timeout: 120_000 }, async () => {
      await callControl(s.base, "DELETE", "/captured/");
      const token = s.store.projects.get("1")!.api_token;
      const batch = Array.from({ length: 10_000 }, (_v, i) => ({ event: "bulk", distinct_id: `bulk-${i}`, properties: { i } }));
      const sent = await fetch(`${s.base}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: token, batch }) });
      expect(sent.status).toBe(200);
      const ui = await inspector("events");
      await ui.waitForSelector("#event-count:text('10000 of 10000 events')");
      expect(await ui.locator(".vrow").count()).toBeLessThan(60);
      await ui.locator("#events-list").evaluate((el) => ((el as unknown as { scrollTop: number }).scrollTop = 34 * 9_990));
      await ui.waitForSelector(".vrow[data-distinct-id='bulk-0']");
      await ui.close();
      await callControl(s.base, "DELETE", "/captured/");
    });
  });

  it("requests: lists the log, filters it, and copies a request as curl with the key masked", { timeout: 60_000 }, async () => {
    await callControl(s.base, "DELETE", "/requests/");
    await s.get(`${P}/insights/?limit=2`);
    await s.get(`${P}/persons/?personal_api_key=${OWNER_KEY}`);
    await s.get(`${P}/insights/999999/`);
    const override = (await callControl(s.base, "POST", "/overrides/", { operation_id: "dashboards_list", status: 500, times: 1 })).body;
    expect((await s.get(`${P}/dashboards/`)).status).toBe(500);
    const ui = await inspector("requests");
    await ui.waitForSelector("#request-count:text('4 of 4 requests')");
    expect(await ui.textContent(".vrow[data-operation='dashboards_list'] .c-steer")).toBe(`override ${override.id}`);
    await ui.fill("input[name=filter]", "404");
    await ui.waitForSelector("#request-count:text('1 of 4 requests')");
    expect(await ui.getAttribute(".vrow", "data-operation")).toBe("insights_retrieve");
    await ui.fill("input[name=filter]", "persons");
    await ui.click(".vrow");
    const curl = (await ui.textContent("#curl"))!;
    expect(curl).toContain(`curl -X GET '${s.base}${P}/persons/?personal_api_key=phx_`);
    expect(curl).not.toContain(OWNER_KEY);
    expect(problemsOf(ui)).toEqual([]);
    await ui.close();
  });

  it("flags: a value forced from the page is what posthog-js receives, and released it is the evaluated one again", { timeout: 120_000 }, async () => {
    const app = await browser.newPage();
    await app.goto(`${site.base}/flags`);
    await app.waitForFunction(() => window.posthog?.__loaded === true);
    const distinctId = await app.evaluate(() => window.posthog.get_distinct_id());
    const ui = await inspector("flags");
    await ui.fill("input[name=distinct_id]", distinctId);
    await ui.click("#evaluate");
    const row = ui.locator("tr[data-key='new-onboarding']");
    await row.waitFor();
    const before = await row.getAttribute("data-evaluated");
    const forced = before === "true" ? "false" : "true";
    await row.locator("select").selectOption(JSON.stringify(forced === "true"));
    await row.locator(".force-toggle").click();
    await ui.waitForSelector(`tr[data-key='new-onboarding'][data-forced='${forced}'][data-evaluated='${forced}']`);
    expect((await callControl(s.base, "GET", "/feature_flags/")).body.results).toMatchObject([{ key: "new-onboarding", value: forced === "true", distinct_id: distinctId, project_id: "1" }]);
    await app.evaluate(() => window.posthog.reloadFeatureFlags());
    await app.waitForFunction((want) => window.posthog.getFeatureFlag("new-onboarding") === want, forced === "true");

    await ui.locator("tr[data-key='new-onboarding'] .force-toggle").click();
    await ui.waitForSelector(`tr[data-key='new-onboarding'][data-forced=''][data-evaluated='${before}']`);
    await app.evaluate(() => window.posthog.reloadFeatureFlags());
    await app.waitForFunction((want) => String(window.posthog.getFeatureFlag("new-onboarding") ?? false) === want, before);
    expect(problemsOf(ui)).toEqual([]);
    await app.close();
    await ui.close();
  });

  it("state: the clock advances, the tracking plan uploads, and a reset from the page empties the log", { timeout: 60_000 }, async () => {
    // The events the other tests captured are gone: the view counts the scenario's own.
    await callControl(s.base, "POST", "/reset/");
    const ui = await inspector("state");
    await ui.waitForSelector("#clock-now:text('2024-03-05T12:00:00.000Z')");
    await ui.waitForSelector("#data-size li[data-count='events']");
    expect(await ui.getAttribute("#data-size li[data-count='events']", "data-value")).toBe(String(scenario("basic").events!.length));
    await ui.fill("input[name=seconds]", "3600");
    await ui.click("#advance");
    await ui.waitForSelector("#clock-now:text('2024-03-05T13:00:00.000Z')");
    await ui.fill("textarea[name=plan]", JSON.stringify({ events: { signup: { type: "object" } } }));
    await ui.click("#upload-plan");
    await ui.waitForSelector("#state-outcome:text('Tracking plan set: 1 events.')");
    expect((await callControl(s.base, "GET", "/tracking_plan/")).body.plan.events).toEqual({ signup: { type: "object" } });

    await s.get(`${P}/insights/`);
    expect((await callControl(s.base, "GET", "/requests/")).body.total).toBeGreaterThan(0);
    await ui.click("#reset");
    await ui.waitForSelector("#state-outcome:text('Reset:')");
    expect((await callControl(s.base, "GET", "/requests/")).body).toEqual({ total: 0, results: [] });
    expect((await callControl(s.base, "GET", "/clock/")).body).toEqual({ now: "2024-03-05T12:00:00.000Z", frozen: true });
    expect(problemsOf(ui)).toEqual([]);
    await ui.close();
  });

  describe("insights as charts, read back from the page against the API's answer", () => {
    let ui: Page;
    beforeAll(async () => {
      ui = await inspector("insights");
      await ui.waitForSelector("#saved-insights button");
    });
    afterAll(() => ui?.close());
    const dateRange = { date_from: "2024-02-28", date_to: "2024-03-05" };
    const series = [{ kind: "EventsNode", event: "$pageview" }];

    it("trends: a line per series with the answer's points", async () => {
      const results = await drawAdHoc(ui, "trends", { kind: "TrendsQuery", series, dateRange });
      expect(await attr(ui, "series")).toEqual(results.map((r: { label: string; data: number[] }) => ({ label: r.label, data: r.data })));
      expect(results[0].data.reduce((a: number, b: number) => a + b, 0)).toBeGreaterThan(0);
      expect(await ui.locator("#chart canvas").count()).toBe(1);
    });
    it("stickiness: a line over days active", async () => {
      const results = await drawAdHoc(ui, "stickiness", { kind: "StickinessQuery", series, dateRange });
      expect(await attr(ui, "series")).toEqual(results.map((r: { label: string; data: number[] }) => ({ label: r.label, data: r.data })));
    });
    it("funnels: steps with the answer's counts", async () => {
      const results = await drawAdHoc(ui, "funnels", { kind: "FunnelsQuery", series: [{ kind: "EventsNode", event: "$pageview" }, { kind: "EventsNode", event: "signup" }], dateRange });
      expect(await attr(ui, "counts")).toEqual(results.map((r: { count: number }) => r.count));
      expect(await ui.locator(".funnel li").count()).toBe(2);
    });
    it("retention: the cohort table's cells are the answer's counts", async () => {
      const entity = { id: "$pageview", type: "events" };
      const results = await drawAdHoc(ui, "retention", { kind: "RetentionQuery", retentionFilter: { targetEntity: entity, returningEntity: entity, period: "Day", totalIntervals: 5 }, dateRange });
      const want = results.map((r: { values: { count: number }[] }) => r.values.map((v) => v.count));
      expect(await attr(ui, "cells")).toEqual(want);
      const cells = await ui.locator(".retention td.cell").evaluateAll((tds) => tds.map((td) => Number((td as unknown as { dataset: { count: string } }).dataset.count)));
      expect(cells).toEqual(want.flat());
    });
    it("lifecycle: stacked bars of the four statuses", async () => {
      const results = await drawAdHoc(ui, "lifecycle", { kind: "LifecycleQuery", series, dateRange });
      const byStatus = Object.fromEntries(results.map((r: { status: string; data: number[] }) => [r.status, r.data]));
      expect(await attr(ui, "series")).toEqual(["new", "returning", "resurrecting", "dormant"].map((status) => ({ status, data: byStatus[status] })));
    });
    it("paths: the answer's links, heaviest first", async () => {
      const results = await drawAdHoc(ui, "paths", { kind: "PathsQuery", pathsFilter: { includeEventTypes: ["$pageview", "custom_event"] }, dateRange });
      expect(results.length).toBeGreaterThan(0);
      const want = [...results].sort((a: { value: number }, b: { value: number }) => b.value - a.value).map((l: { source: string; target: string; value: number }) => [l.source, l.target, l.value]);
      expect(await attr(ui, "links")).toEqual(want);
    });
    it("a saved insight is drawn from the answer GET insights/:id/ gives", async () => {
      const saved = (await s.get(`${P}/insights/1/`)).body;
      await ui.click("#saved-insights button[data-insight='1']");
      await ui.waitForSelector("#chart[data-insight='1'][data-kind='trends']");
      expect((await attr(ui, "series")).map((x: { data: number[] }) => x.data)).toEqual(saved.result.map((r: { data: number[] }) => r.data));
    });
    it("a dashboard's tiles are each drawn", async () => {
      const board = await s.post(`${P}/dashboards/`, { name: "Inspector board" });
      expect(board.status).toBe(201);
      expect((await s.patch(`${P}/insights/1/`, { dashboards: [board.body.id] })).status).toBe(200);
      await ui.reload();
      await ui.click("summary:text('Dashboards')");
      await ui.click(`#dashboards button[data-dashboard='${board.body.id}']`);
      await ui.waitForSelector(".tile[data-insight='1'] .chart[data-kind='trends'] canvas");
      expect(problemsOf(ui)).toEqual([]);
    });
  });

  it("asks for the personal key where `/` does not show it, and uses the one typed in", { timeout: 60_000 }, async () => {
    const page = await browser.newPage({ locale: "en-US" });
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.route(`${s.base}/`, (route) => route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><p>no key here</p>" }));
    await page.goto(`${s.base}/_mock/ui/#insights`);
    await page.waitForSelector("#key-field:visible");
    expect(await page.textContent(".problem")).toContain("Enter the personal API key");
    expect(await page.content()).not.toContain(OWNER_KEY);
    await page.fill("#key-field input", OWNER_KEY);
    await page.press("#key-field input", "Enter");
    await page.locator("#key-field input").dispatchEvent("change");
    await page.waitForSelector("#saved-insights button[data-insight='1']");
    await page.close();
  });

  it("every view at desktop and phone widths: screenshots, no page-wide sideways scroll on a phone", { timeout: 120_000 }, async () => {
    await callControl(s.base, "DELETE", "/captured/");
    const token = s.store.projects.get("1")!.api_token;
    const batch = ["$pageview", "clicked buy", "signed up"].map((event, i) => ({ event, distinct_id: `shot-${i}`, properties: { $current_url: "https://shop.example/", price: 12 } }));
    await fetch(`${s.base}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: token, batch }) });
    await s.get(`${P}/insights/?limit=2`);
    for (const [device, width] of Object.entries(WIDTHS)) {
      for (const view of ["events", "requests", "flags", "state", "insights"]) {
        const ui = await inspector(view, width);
        if (view === "events") await ui.waitForSelector(".vrow");
        if (view === "requests") await ui.waitForSelector(".vrow");
        if (view === "flags") await ui.waitForSelector("tr[data-key]");
        if (view === "state") await ui.waitForSelector("#data-size li");
        if (view === "insights") {
          await ui.click("#saved-insights button[data-insight='1']");
          await ui.waitForSelector("#chart canvas");
        }
        // `/` shows this machine's viewer the key: the page never asks for it.
        expect(await ui.isVisible("#key-field"), view).toBe(false);
        await ui.screenshot({ path: `${SCREENSHOTS}/${view}-${device}.png`, fullPage: view !== "events" && view !== "requests" });
        if (device === "phone") expect(await ui.evaluate(() => document.documentElement.scrollWidth), view).toBeLessThanOrEqual(width);
        if (view === "insights") {
          for (const [kind, query] of Object.entries(SHOWN_QUERIES)) {
            await drawAdHoc(ui, kind, query);
            await ui.locator("#chart").screenshot({ path: `${SCREENSHOTS}/insights-${kind}-${device}.png` });
          }
          if (device === "phone") expect(await ui.evaluate(() => document.documentElement.scrollWidth), "charts").toBeLessThanOrEqual(width);
        }
        expect(problemsOf(ui), view).toEqual([]);
        await ui.close();
      }
    }
  });
});
