import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium, servePosthogPage, posthogPageHtml, QUIET_POSTHOG } from "../support/browser.ts";
import { chromium } from "../support/external-tools.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * The real posthog-js browser bundle, on a page of another origin, sends to the server; what it sent is read
 * back through the project API. Headless Chromium looks like a bot to posthog-js: opt_out_useragent_filter.
 */
const UI_TIMEOUT = 60_000;

let s: TestServer;
let site: Awaited<ReturnType<typeof servePosthogPage>>;
let siteBase: string;

const pageHtml = (token: string, apiHost: string) => posthogPageHtml({ title: "shop", token, apiHost, options: QUIET_POSTHOG, body: "<h1>shop</h1>" });

/** The page's global posthog (the test's tsconfig has no DOM types). */
declare const window: { posthog: { __loaded?: boolean; get_distinct_id(): string; capture(event: string, properties?: object): void; identify(id: string, set?: object): void } };

chromium.describe("posthog-js captures from a page of another origin", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 120_000);

  beforeAll(async () => {
    s = await startTestServer(scenario("basic"));
    const token = s.store.projects.get("1")!.api_token;
    site = await servePosthogPage(pageHtml(token, s.base));
    siteBase = site.base;
  });

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  const P = "/api/projects/1";

  describe("posthog-js in a browser", () => {
    it("sends its $pageview, a custom event and identify without a failed request or console error", { timeout: 180_000 }, async () => {
      const page = await browser.newPage();
      page.setDefaultTimeout(UI_TIMEOUT);
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") problems.push(`console: ${m.text()}`);
      });
      page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      page.on("requestfailed", (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
      page.on("response", (r) => {
        if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
      });
      const captures: string[] = [];
      page.on("requestfinished", (r) => {
        if (r.url().startsWith(s.base)) captures.push(new URL(r.url()).pathname);
      });

      await page.goto(`${siteBase}/checkout`);
      await page.waitForFunction(() => window.posthog?.__loaded === true);
      const anonId = await page.evaluate(() => window.posthog.get_distinct_id());
      await page.evaluate(() => window.posthog.capture("clicked buy", { price: 12 }));
      await page.evaluate(() => window.posthog.identify("shopper-1", { email: "shopper@x.io" }));

      await expect.poll(async () => (await s.get(`${P}/persons/?distinct_id=shopper-1`)).body.results.length, { timeout: UI_TIMEOUT }).toBe(1);
      await expect.poll(async () => (await s.get(`${P}/events/?event=clicked%20buy`)).body.results.length, { timeout: UI_TIMEOUT }).toBe(1);

      const pageviews = (await s.get(`${P}/events/?event=%24pageview`)).body.results.filter((e: any) => e.distinct_id === anonId);
      expect(pageviews).toHaveLength(1);
      expect(pageviews[0].properties).toMatchObject({ $current_url: `${siteBase}/checkout`, $lib: "web" });
      const [person] = (await s.get(`${P}/persons/?distinct_id=shopper-1`)).body.results;
      expect(person).toMatchObject({ is_identified: true, properties: { email: "shopper@x.io" } });
      expect(person.distinct_ids).toEqual(expect.arrayContaining(["shopper-1", anonId]));
      expect(captures.some((p) => p === "/e/" || p === "/i/v0/e/")).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});
