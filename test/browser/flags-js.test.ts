import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { launchChromium, servePosthogPage, posthogPageHtml, QUIET_POSTHOG } from "../support/browser.ts";
import { chromium } from "../support/external-tools.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Feature flags in a browser, as an app's end-to-end test uses them: the real posthog-js bundle on a page of
 * another origin asks the server for flags, shows a flag-gated banner with its payload and a button in the
 * experiment's variant. capture.json's project 1 has `welcome-banner` (on for everyone, payload
 * `{"title": "Welcome!"}`) and `checkout-experiment` (control/green, 50/50); the test forces the variant for its
 * shopper through the control API, then switches the banner off through the flags API.
 */
const UI_TIMEOUT = 60_000;
const SHOPPER = "shopper-1";

const pageHtml = (token: string, apiHost: string) =>
  posthogPageHtml({
    title: "shop",
    token,
    apiHost,
    options: [...QUIET_POSTHOG, `bootstrap: { distinctID: ${JSON.stringify(SHOPPER)} }`],
    body: '<div id="banner" hidden></div><button id="buy">Buy</button>',
    script: `
  posthog.onFeatureFlags(function () {
    var banner = document.getElementById("banner");
    banner.hidden = !posthog.isFeatureEnabled("welcome-banner");
    var payload = posthog.getFeatureFlagPayload("welcome-banner");
    banner.textContent = payload ? payload.title : "";
    document.getElementById("buy").className = String(posthog.getFeatureFlag("checkout-experiment"));
    window.flagsSeen = (window.flagsSeen || 0) + 1;
  });`,
  });

declare const window: { flagsSeen?: number; posthog: { getFeatureFlag(key: string): unknown; reloadFeatureFlags(): void } };
declare const document: { getElementById(id: string): { hidden: boolean; textContent: string; className: string } };

chromium.describe("posthog-js feature flags in a browser", () => {
  let browser: Browser;
  let s: TestServer;
  let site: Awaited<ReturnType<typeof servePosthogPage>>;
  let siteBase: string;

  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(scenario("capture"));
    const token = s.store.projects.get("1")!.api_token;
    site = await servePosthogPage(pageHtml(token, s.base));
    siteBase = site.base;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  const control = (method: string, path: string, body?: unknown) =>
    fetch(`${s.base}/_mock${path}`, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });

  async function openShop(): Promise<Page> {
    const page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(siteBase);
    await page.waitForFunction(() => (window.flagsSeen ?? 0) > 0);
    return page;
  }

  describe("flags served by the server", () => {
    it("shows the flag-gated banner with its payload and the forced variant, then follows a change made through the API", { timeout: 180_000 }, async () => {
      expect((await control("POST", "/feature_flags/", { key: "checkout-experiment", value: "green", distinct_id: SHOPPER })).status).toBe(201);
      const page = await openShop();
      expect(await page.locator("#banner").isVisible()).toBe(true);
      expect(await page.locator("#banner").textContent()).toBe("Welcome!");
      expect(await page.locator("#buy").getAttribute("class")).toBe("green");

      // Switched off through the flags API: the next page load hides the banner.
      const flag = s.store.flags.byKey("1", "welcome-banner")!;
      expect((await s.patch(`/api/projects/1/feature_flags/${flag.id}/`, { active: false })).status).toBe(200);
      await page.reload();
      await page.waitForFunction(() => (window.flagsSeen ?? 0) > 0);
      expect(await page.locator("#banner").isVisible()).toBe(false);

      // Forced to control, then reloaded in place.
      await control("POST", "/feature_flags/", { key: "checkout-experiment", value: "control", distinct_id: SHOPPER });
      await page.evaluate(() => window.posthog.reloadFeatureFlags());
      await page.waitForFunction(() => window.posthog.getFeatureFlag("checkout-experiment") === "control");
      expect(await page.locator("#buy").getAttribute("class")).toBe("control");
      await page.close();

      // The captured log says whom the server evaluated and what it answered.
      const log = (await (await control("GET", "/captured/?limit=50")).json()) as { results: { path: string; flags?: { distinct_id: string; values: Record<string, unknown> } }[] };
      const evaluated = log.results.filter((r) => r.flags?.distinct_id === SHOPPER);
      expect(evaluated.length).toBeGreaterThanOrEqual(3);
      expect(evaluated[0]!.flags!.values["checkout-experiment"]).toBe("control");
    });
  });
});
