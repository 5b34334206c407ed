import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { exceptionPattern } from "../../src/control/exception-pattern.ts";
import { launchChromium, servePosthogPage, posthogPageHtml } from "../support/browser.ts";
import { callControl } from "../support/control-contract.ts";
import { chromium } from "../support/external-tools.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * posthog-js's default npm bundle (array.js: no extension inside) on a page of another origin, for a project
 * with every feature on (fixtures/scenarios/features.json). Remote config turns exception autocapture, web
 * vitals and dead clicks on; posthog-js loads their scripts from the server's /static/, with no failed request
 * and no console error; a thrown error arrives as `$exception`, the page's vitals as `$web_vitals`, a click
 * that changes nothing as `$dead_click`, each read back through the events API.
 */
const UI_TIMEOUT = 60_000;
const TOKEN = "phc_test_features_token_0001";
const P = "/api/projects/1";

const pageHtml = (apiHost: string) =>
  posthogPageHtml({
    title: "checkout",
    token: TOKEN,
    apiHost,
    options: ["request_batching: false"],
    body: '<h1>Checkout</h1><p>Three items in the cart, ready to pay.</p>\n<button id="dead">Apply coupon</button>',
  });

/** The page's global posthog and the extensions' registry (the test's tsconfig has no DOM types). */
declare const window: {
  posthog: { __loaded?: boolean; get_distinct_id(): string; exceptionObserver?: { isEnabled: boolean } };
  __PosthogExtensions__?: Record<string, unknown>;
};
declare function setTimeout(fn: () => void, ms: number): unknown;

/** Every request of the page that failed or was refused, and every console error, as lines. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console: ${m.text()}`);
  });
  page.on("requestfailed", (r) => problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`${r.status()}: ${r.url()}`);
  });
  return problems;
}

chromium.describe("posthog-js's lazy extensions from /static/", () => {
  let browser: Browser;
  let s: TestServer;
  let site: Awaited<ReturnType<typeof servePosthogPage>>;

  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(scenario("features"));
    site = await servePosthogPage(pageHtml(s.base), "array.js");
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  it("load without a failed request or console error, and deliver exceptions, web vitals and dead clicks", { timeout: 180_000 }, async () => {
    const page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    const problems = watchProblems(page);
    const scripts: string[] = [];
    page.on("requestfinished", (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith("/static/")) scripts.push(path.replace(/^\/static\/(?:[^/]+\/)?/, ""));
    });

    await page.goto(`${site.base}/checkout`);
    await page.waitForFunction(() => window.posthog?.__loaded === true);
    // Each extension registers itself once its script ran.
    await page.waitForFunction(() => {
      const ext = window.__PosthogExtensions__ ?? {};
      return Boolean(ext.errorWrappingFunctions && ext.initDeadClicksAutocapture && ext.postHogWebVitalsCallbacks && window.posthog.exceptionObserver?.isEnabled);
    });
    expect(scripts).toEqual(expect.arrayContaining(["exception-autocapture.js", "dead-clicks-autocapture.js", "web-vitals-with-attribution.js"]));
    const distinctId = await page.evaluate(() => window.posthog.get_distinct_id());

    // Thrown outside evaluate, so that it is uncaught: the page's own error, which autocapture reports.
    await page.evaluate(() => void setTimeout(() => {
      throw new TypeError("cart is undefined");
    }, 0));
    await page.click("#dead");

    const exception = (await callControl(s.base, "POST", "/captured/wait/", { ...exceptionPattern({ type: "TypeError", message: "cart is undefined" }), timeout_ms: 30_000 })).body;
    expect(exception).toMatchObject({ status: "matched", count: 1 });
    const stored = async (event: string) => (await s.get(`${P}/events/?event=${encodeURIComponent(event)}`)).body.results.filter((e: { distinct_id: string }) => e.distinct_id === distinctId);
    await expect.poll(() => stored("$exception"), { timeout: UI_TIMEOUT }).toHaveLength(1);
    expect((await stored("$exception"))[0].properties.$exception_list[0]).toMatchObject({ type: "TypeError", value: "cart is undefined", mechanism: { handled: false } });

    // posthog-js flushes the vitals it has 5 s after the first; a click that changes nothing is dead after 2.5 s.
    await expect.poll(() => stored("$dead_click"), { timeout: UI_TIMEOUT }).toHaveLength(1);
    expect((await stored("$dead_click"))[0].properties).toMatchObject({ $el_text: "Apply coupon" });
    await expect.poll(() => stored("$web_vitals"), { timeout: UI_TIMEOUT }).not.toHaveLength(0);
    expect((await stored("$web_vitals"))[0].properties).toHaveProperty("$web_vitals_FCP_value");

    // The uncaught error is the page's own (a pageerror, not a console line): nothing else went wrong.
    expect(problems).toEqual([]);
    await page.close();
  });
});
