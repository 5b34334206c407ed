import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchChromium, servePosthogPage, posthogPageHtml, QUIET_POSTHOG } from "../support/browser.ts";
import { callControl } from "../support/control-contract.ts";
import { chromium } from "../support/external-tools.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * A popover survey in a browser: defined through the surveys API, then shown by posthog-js's default npm bundle
 * (array.js, which loads `surveys.js` from the server's `/static/` once remote config says `surveys: true`) on a
 * page of another origin, answered by clicking in the page, and counted by the survey's stats endpoint. No request
 * to the server fails on the way. A draft survey forced for one distinct id through the control API is shown to
 * that visitor alone. On basic.json (frozen at 2024-03-05T12:00Z).
 */
const UI_TIMEOUT = 60_000;
const P = "/api/projects/1";
const VISITOR = "survey-visitor-1";

const pageHtml = (token: string, apiHost: string) =>
  posthogPageHtml({
    title: "app",
    token,
    apiHost,
    options: [...QUIET_POSTHOG, `bootstrap: { distinctID: new URLSearchParams(location.search).get("who") || ${JSON.stringify(VISITOR)} }`],
    body: "<h1>Notebooks</h1>",
  });

declare const window: {
  posthog: { onFeatureFlags(cb: () => void): void; getActiveMatchingSurveys(cb: (surveys: { id: string }[]) => void, forceReload: boolean): void };
};

chromium.describe("posthog-js surveys in a browser", () => {
  let browser: Browser;
  let s: TestServer;
  let site: Awaited<ReturnType<typeof servePosthogPage>>;
  let survey: { id: string; questions: { id: string }[] };

  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(scenario("basic"));
    const created = await s.post(`${P}/surveys/`, {
      name: "Notebooks feedback",
      type: "popover",
      questions: [{ type: "single_choice", question: "Do you like notebooks?", choices: ["Yes", "No"] }],
      start_date: "2024-03-04T12:00:00Z",
    });
    expect(created.status).toBe(201);
    survey = created.body;
    site = await servePosthogPage(pageHtml(s.store.projects.get("1")!.api_token, s.base), "array.js");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  it("shows the survey, sends the answer clicked, and the stats count it", { timeout: 180_000 }, async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    const failed: string[] = [];
    const scripts: string[] = [];
    page.on("request", (r) => {
      if (r.url().startsWith(`${s.base}/static/`)) scripts.push(new URL(r.url()).pathname);
    });
    page.on("requestfailed", (r) => failed.push(`failed: ${r.url()} (${r.failure()?.errorText})`));
    page.on("response", (r) => {
      if (r.url().startsWith(s.base) && r.status() >= 400) failed.push(`${r.status()}: ${r.url()}`);
    });
    await page.goto(`${site.base}/notebooks`);

    // posthog-js renders the popover in an open shadow root, which Playwright's locators enter.
    await page.getByText("Do you like notebooks?").waitFor();
    await page.getByText("Yes", { exact: true }).click();
    await page.getByRole("button", { name: "Submit" }).click();

    const stats = async () => (await s.get(`${P}/surveys/${survey.id}/stats/`)).body;
    await expect.poll(async () => (await stats()).stats["survey sent"].total_count, { timeout: UI_TIMEOUT }).toBe(1);
    const answer = await stats();
    // One visitor, shown once, answered once: 1/1 = 100 %.
    expect(answer.stats["survey shown"]).toMatchObject({ total_count: 1, unique_persons: 1 });
    expect(answer.stats["survey sent"]).toMatchObject({ total_count: 1, unique_persons: 1 });
    expect(answer.rates).toMatchObject({ response_rate: 100, unique_users_response_rate: 100 });
    expect((await s.get(`${P}/surveys/responses_count/`)).body).toEqual({ [survey.id]: 1 });
    const sent = (await s.get(`${P}/events/?event=${encodeURIComponent("survey sent")}`)).body.results[0];
    expect(sent.distinct_id).toBe(VISITOR);
    expect(sent.properties).toMatchObject({ $survey_id: survey.id, [`$survey_response_${survey.questions[0]!.id}`]: "Yes" });
    expect(scripts.some((p) => p.endsWith("/surveys.js"))).toBe(true);
    expect(failed).toEqual([]);
    await page.close();
  });

  it("shows a draft survey forced for one visitor to that visitor, not to another", { timeout: 180_000 }, async () => {
    expect((await s.patch(`${P}/surveys/${survey.id}/`, { end_date: "2024-03-05T11:00:00Z" })).status).toBe(200);
    const draft = await s.post(`${P}/surveys/`, { name: "Forced draft", type: "popover", questions: [{ type: "open", question: "What brought you here?" }] });
    expect(draft.status).toBe(201);
    expect((await callControl(s.base, "POST", "/surveys/force/", { survey_id: draft.body.id, distinct_id: "forced-visitor" })).status).toBe(201);

    // posthog-js's own verdict once its flags are in: the surveys it would show this visitor.
    const matching = (page: Page) =>
      page.evaluate(
        () =>
          new Promise<string[]>((resolve) => {
            window.posthog.onFeatureFlags(() => window.posthog.getActiveMatchingSurveys((surveys) => resolve(surveys.map((x) => x.id)), true));
          }),
      );
    const other = await browser.newPage();
    other.setDefaultTimeout(UI_TIMEOUT);
    await other.goto(`${site.base}/notebooks?who=someone-else`);
    expect(await matching(other)).toEqual([]);
    await other.close();

    const page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${site.base}/notebooks?who=forced-visitor`);
    expect(await matching(page)).toEqual([draft.body.id]);
    await page.getByRole("textbox").fill("A friend");
    await page.getByRole("button", { name: "Submit" }).click();
    const waited = await callControl(s.base, "POST", "/captured/wait/", { event: "survey sent", distinct_id: "forced-visitor", properties: { $survey_id: draft.body.id }, timeout_ms: UI_TIMEOUT });
    expect(waited.body.status).toBe("matched");
    expect(waited.body.events[0].properties[`$survey_response_${draft.body.questions[0].id}`]).toBe("A friend");
    await page.close();
  });
});
