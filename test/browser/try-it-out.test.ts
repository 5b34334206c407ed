import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium, openDocsOperation } from "../support/browser.ts";
import { chromium } from "../support/external-tools.ts";
import { defaultApiKey, generateFixtures } from "../../src/fixtures/generate.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

/** Generous: a cold Chromium on a shared 2-vCPU machine. Playwright waits for conditions, never for time. */
const UI_TIMEOUT = 60_000;
const SEED = 42;

let s: TestServer;

chromium.describe("/docs Try it out on the default dataset (browser)", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 120_000);

  beforeAll(async () => {
    // The dataset `npm start` serves (default seed and size), at a fixed instant.
    s = await startTestServer(generateFixtures({ seed: SEED, now: new Date("2024-06-15T12:00:00Z") }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  describe("/docs Try it out on the default dataset", () => {
    it("runs the trend operation's first example as prefilled and gets a non-empty trend", { timeout: 180_000 }, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      page.setDefaultTimeout(UI_TIMEOUT);
      await page.goto(`${s.base}/docs`);

      // Authorize comes prefilled with the running server's key (this viewer is on loopback).
      await page.locator("button.authorize").first().click();
      const dialog = page.locator(".modal-ux");
      await dialog.getByRole("button", { name: "Remove authorization" }).waitFor({ state: "visible" });
      await dialog.locator("button.btn-done").first().click();

      const operation = await openDocsOperation(page, s.base, "insights", "insights_trend_create");
      await operation.getByRole("button", { name: "Try it out" }).click();
      const projectId = operation.locator('tr[data-param-name="project_id"] input');
      await expect(projectId.inputValue()).resolves.toBe("1");
      await expect(operation.locator("textarea.body-param__text").inputValue()).resolves.toContain('"-30d"');

      const answered = page.waitForResponse((res) => res.url().includes("/api/projects/1/insights/trend/") && res.request().method() === "POST");
      await operation.getByRole("button", { name: "Execute" }).click();
      const response = await answered;
      expect(response.status()).toBe(200);
      const body = (await response.json()) as { result: Array<{ data: number[] }> };
      expect(body.result.length).toBeGreaterThan(0);
      expect(body.result.flatMap((series) => series.data).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);

      const live = operation.locator(".live-responses-table tr.response");
      await live.waitFor({ state: "visible" });
      expect((await live.locator(".response-col_status").innerText()).trim()).toBe("200");
      await page.close();
    });

    it("leaves the persons list's filters empty, so a first search lists every person", { timeout: 180_000 }, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      page.setDefaultTimeout(UI_TIMEOUT);
      const operation = await openDocsOperation(page, s.base, "persons", "persons_list");
      await operation.getByRole("button", { name: "Try it out" }).click();
      await expect(operation.locator('tr[data-param-name="project_id"] input').inputValue()).resolves.toBe("1");
      await expect(operation.locator('tr[data-param-name="properties"] input').inputValue()).resolves.toBe("");
      await expect(operation.locator('tr[data-param-name="project_id"] .examples-select').count()).resolves.toBe(0);
      await page.close();
    });
  });

  interface DocsOperation {
    requestBody?: { content: { "application/json": { examples?: Record<string, { value: unknown }> } } };
  }

  /** What "non-empty" means for each analysis answer the default_dataset examples get. */
  const NON_EMPTY: Record<string, (body: any) => boolean> = {
    "/insights/trend/": (b) => b.result.some((series: { data: number[] }) => series.data.some((n) => n > 0)),
    "/insights/funnel/": (b) => b.result[0].count > 0 && b.result[1].count > 0,
    "/insights/funnel/correlation/": (b) => b.result.events.length > 0,
    "/insights/path/": (b) => b.result.length > 0,
    "/persons/funnel/": (b) => b.results[0].people.length > 0,
    "/persons/path/": (b) => b.results[0].people.length > 0,
    // Issue 41: the query API's first example read basic.json's March 2024 and answered zeros here.
    "/query/": (b) => b.results.some((series: { data: number[] }) => series.data.some((n) => n > 0)),
  };

  describe("the default_dataset examples", () => {
    it("are the first request example of each analysis, and answer non-empty results on the default dataset", { timeout: 120_000 }, async () => {
      const doc = (await (await fetch(`${s.base}/docs/openapi.json`)).json()) as { paths: Record<string, { post?: DocsOperation }> };
      for (const [suffix, nonEmpty] of Object.entries(NON_EMPTY)) {
        const examples = doc.paths[`/api/projects/{project_id}${suffix}`]!.post!.requestBody!.content["application/json"].examples!;
        expect(Object.keys(examples)[0], suffix).toBe("default_dataset");
        const res = await s.post(`/api/projects/1${suffix}`, examples.default_dataset!.value, { key: defaultApiKey(SEED) });
        expect(res.status, suffix).toBe(200);
        expect(nonEmpty(res.body), `${suffix}: ${res.text.slice(0, 300)}`).toBe(true);
      }
    });
  });
});
