import { mkdirSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/browser.ts";
import { chromium } from "../support/external-tools.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

const ARTIFACTS = "test-artifacts";
/** Generous: a cold Chromium on a shared 2-vCPU machine. Playwright waits for conditions, never for time. */
const UI_TIMEOUT = 60_000;

let s: TestServer;

chromium.describe("the trend operation's reference page (browser)", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(scenario("basic"));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  describe("GET /insights/trend/ in /docs", () => {
    it("opens with one plain sentence, is authorized with the running key, and Try it out calls this server without format", { timeout: 180_000 }, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
      page.setDefaultTimeout(UI_TIMEOUT);
      await page.goto(`${s.base}/docs#/insights/insights_trend_retrieve`);
      const operation = page.locator("#operations-insights-insights_trend_retrieve");
      await operation.locator(".opblock-body").waitFor({ state: "visible" });

      const firstParagraph = operation.locator(".opblock-description-wrapper p").first();
      await expect(firstParagraph.innerText()).resolves.toBe("Counts the project's events over time, with the filter in the query string.");
      // The padlock of an operation whose security scheme has a value is drawn locked.
      await expect(operation.locator("button.authorization__btn").getAttribute("aria-label")).resolves.toBe("authorization button locked");
      await operation.scrollIntoViewIfNeeded();
      mkdirSync(ARTIFACTS, { recursive: true });
      await operation.screenshot({ path: `${ARTIFACTS}/trend-after.png` });

      // Rarely-used fields sit in one "advanced" input; the common ones keep their own rows.
      const rows = operation.locator("table.parameters > tbody > tr[data-param-name]");
      await expect(rows.count()).resolves.toBeLessThan(20);
      await expect(operation.locator('tr[data-param-name="advanced"]').count()).resolves.toBe(1);
      await expect(operation.locator('tr[data-param-name="smoothing_intervals"]').count()).resolves.toBe(0);

      await operation.getByRole("button", { name: "Try it out" }).click();
      await expect(operation.locator('tr[data-param-name="format"] select').inputValue()).resolves.toBe("");
      await expect(operation.locator('tr[data-param-name="project_id"] input').inputValue()).resolves.toBe("1");
      // The examples prefill a property filter and a breakdown; this run asks for the plain series.
      await operation.locator('tr[data-param-name="properties"] input').fill("");
      await operation.locator('tr[data-param-name="breakdown"] input').fill("");
      await operation.locator('tr[data-param-name="events"] input').fill('[{"id":"$pageview"}]');
      await operation.locator('tr[data-param-name="date_from"] input').fill("2024-03-01");
      await operation.locator('tr[data-param-name="date_to"] input').fill("2024-03-03");
      await operation.locator('tr[data-param-name="advanced"] textarea').fill('{"smoothing_intervals": 1}');
      const answered = page.waitForResponse((res) => res.url().includes("/api/projects/1/insights/trend/"));
      await operation.getByRole("button", { name: "Execute" }).click();
      const response = await answered;
      expect(response.status()).toBe(200);
      expect(new URL(response.url()).searchParams.has("format")).toBe(false);
      expect(new URL(response.url()).searchParams.get("smoothing_intervals")).toBe("1");
      const body = (await response.json()) as { result: Array<{ label: string; data: number[] }> };
      expect(body.result.map((series) => [series.label, series.data])).toEqual([["$pageview", [3, 1, 1]]]);
      await page.close();
    });
  });
});
