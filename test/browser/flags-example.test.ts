import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { FixtureDocument } from "../../src/index.ts";
import { launchChromium, servePosthogPage } from "../support/browser.ts";
import { chromium } from "../support/external-tools.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

/**
 * The README's flags example: a fixture flag rolled out to 50% (examples/flags.json), read by the real
 * posthog-js in Chromium. Who gets it, worked out by hand with the real service's rollout hash
 * (posthog/models/feature_flag/flag_matching.py, `get_hash`: the first 15 hex digits of
 * SHA-1("new-onboarding.<distinct id>") over 0xFFFFFFFFFFFFFFF, compared with 0.5):
 * user-1 → 0.3808 (in), user-4 → 0.9049 (out).
 */
const root = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURE = readFileSync(`${root}/examples/flags.json`, "utf8");

const pageHtml = (apiHost: string) => `<!doctype html><html><head><title>app</title></head><body>
<p id="onboarding">old onboarding</p>
<script src="/posthog.js"></script>
<script>
  posthog.init("phc_shop_token", {
    api_host: ${JSON.stringify(apiHost)},
    bootstrap: { distinctID: new URLSearchParams(location.search).get("user") },
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_session_recording: true,
  });
  posthog.onFeatureFlags(() => {
    if (posthog.isFeatureEnabled("new-onboarding")) document.getElementById("onboarding").textContent = "new onboarding";
    document.body.dataset.flags = "loaded";
  });
</script></body></html>`;

chromium.describe("the README's flags example in a browser", () => {
  let browser: Browser;
  let s: TestServer;
  let site: Awaited<ReturnType<typeof servePosthogPage>>;

  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(JSON.parse(FIXTURE) as FixtureDocument);
    site = await servePosthogPage(pageHtml(s.base));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  it.each([
    ["user-1", "new onboarding"],
    ["user-4", "old onboarding"],
  ])("%s sees the %s", async (user, shown) => {
    const page = await browser.newPage();
    await page.goto(`${site.base}/?user=${user}`);
    await page.waitForSelector("body[data-flags=loaded]", { timeout: 60_000 });
    expect(await page.locator("#onboarding").textContent()).toBe(shown);
    await page.close();
  }, 120_000);
});

it("the README shows the example's fixture as examples/flags.json holds it", () => {
  expect(readFileSync(`${root}/README.md`, "utf8")).toContain(FIXTURE);
});
