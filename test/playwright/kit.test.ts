import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createServer } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { servePosthogPage } from "../support/browser.ts";
import { checkoutHtml, SHOP_HTML } from "../support/shop-page.ts";
import { chromium } from "../support/external-tools.ts";

/**
 * The Playwright kit as its users run it: `npx playwright test` over test/playwright/*.spec.ts, importing
 * `analytics-mock/playwright` (dist/, built by the global set-up), against a shop page instrumented with the
 * real posthog-js with its default batching.
 */
const root = fileURLToPath(new URL("../..", import.meta.url));

/** A port free a moment ago, for the server Playwright's webServer starts (it takes no port 0). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

function playwrightTest(config: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("npx", ["playwright", "test", "-c", config], { cwd: root, env: { ...process.env, ...env, CI: "" }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

chromium.describe("analytics-mock/playwright in a real Playwright run", () => {
  let site: Awaited<ReturnType<typeof servePosthogPage>>;
  beforeAll(async () => {
    site = await servePosthogPage(SHOP_HTML);
  });
  afterAll(() => site?.close());

  it("runs the example and the matchers' own tests: every one ends as expected", { timeout: 300_000 }, async () => {
    const { code, output } = await playwrightTest("test/playwright/playwright.config.ts", { SHOP_URL: site.base, CHROMIUM_PATH: chromium.path });
    expect(output, output).toMatch(/\b7 passed\b/);
    expect(code, output).toBe(0);
  });
});

chromium.describe("the README's shared-server example with parallel workers", () => {
  let mockUrl: string;
  let app: Awaited<ReturnType<typeof servePosthogPage>>;
  beforeAll(async () => {
    mockUrl = `http://127.0.0.1:${await freePort()}`;
    // capture.json's project 1, which the webServer's `--fixtures capture` loads.
    app = await servePosthogPage(checkoutHtml(mockUrl, "phc_test_capture_token_0001"));
  });
  afterAll(() => app?.close());

  it("passes every test on three workers sharing one server, each run six times", { timeout: 300_000 }, async () => {
    const { code, output } = await playwrightTest("test/playwright/shared-server.config.ts", { MOCK_URL: mockUrl, APP_URL: app.base, CHROMIUM_PATH: chromium.path });
    expect(output, output).toMatch(/\b18 passed\b/);
    expect(code, output).toBe(0);
  });
});

it("the README shows the example tests exactly as the runs above run them", () => {
  const readme = readFileSync(`${root}/README.md`, "utf8");
  const example = readFileSync(`${root}/test/playwright/shop.spec.ts`, "utf8");
  expect(readme).toContain(example);
  expect(readme).toContain(readFileSync(`${root}/test/playwright/shared-server.spec.ts`, "utf8"));
});
