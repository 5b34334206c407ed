import { tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "@playwright/test";

/**
 * The Playwright run of the kit's own tests (test/playwright/kit.test.ts starts it): the shop page's address
 * and the Chromium to use come from the environment, results go to a temporary folder.
 */
export default defineConfig({
  testDir: ".",
  testMatch: "*.spec.ts",
  // The shared-server example has its own run: one server process, several workers (shared-server.config.ts).
  testIgnore: "shared-server.spec.ts",
  outputDir: path.join(tmpdir(), "analytics-mock-playwright-results"),
  workers: 1,
  reporter: [["list"]],
  timeout: 60_000,
  // posthog-js sends its batch a few seconds after the click: the matchers wait up to this long.
  expect: { timeout: 15_000 },
  use: {
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
});
