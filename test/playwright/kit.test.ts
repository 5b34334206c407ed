import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { servePosthogPage } from "../support/browser.ts";
import { chromium } from "../support/external-tools.ts";

/**
 * The Playwright kit as its users run it: `npx playwright test` over test/playwright/*.spec.ts, importing
 * `analytics-mock/playwright` (dist/, built by the global set-up), against a shop page instrumented with the
 * real posthog-js with its default batching.
 */
const root = fileURLToPath(new URL("../..", import.meta.url));

const SHOP_HTML = `<!doctype html><html><head><title>shop</title>
<script src="/posthog.js"></script>
<script>
  const params = new URLSearchParams(location.search);
  posthog.init(params.get("token"), {
    api_host: params.get("api_host"),
    opt_out_useragent_filter: true,
    autocapture: false,
    disable_session_recording: true,
  });
  posthog.onFeatureFlags(() => {
    if (posthog.isFeatureEnabled("new-checkout")) document.getElementById("checkout").textContent = "New checkout";
  });
</script></head><body>
<h1>shop</h1><p id="checkout">Checkout</p>
<button onclick="posthog.capture('clicked buy', { price: 12 })">Buy</button>
<button onclick="posthog.capture('clicked buy', { price: '12' })">Order with a text price</button>
</body></html>`;

chromium.describe("analytics-mock/playwright in a real Playwright run", () => {
  let site: Awaited<ReturnType<typeof servePosthogPage>>;
  beforeAll(async () => {
    site = await servePosthogPage(SHOP_HTML);
  });
  afterAll(() => site?.close());

  it("runs the example and the matchers' own tests: every one ends as expected", { timeout: 300_000 }, async () => {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(
        "npx",
        ["playwright", "test", "-c", "test/playwright/playwright.config.ts"],
        { cwd: root, env: { ...process.env, SHOP_URL: site.base, CHROMIUM_PATH: chromium.path, CI: "" }, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
      );
    });
    expect(output, output).toMatch(/\b5 passed\b/);
    expect(code, output).toBe(0);
  });
});

it("the README shows the example test exactly as the run above runs it", () => {
  const readme = readFileSync(`${root}/README.md`, "utf8");
  const example = readFileSync(`${root}/test/playwright/shop.spec.ts`, "utf8");
  expect(readme).toContain(example);
});
