import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "@playwright/test";

/**
 * The README's shared-server example run as its users run it, with parallel workers (test/playwright/kit.test.ts
 * starts it): one analytics-mock process for every worker, the CLI as `npx analytics-mock` runs it, on the port
 * MOCK_URL names; the app's page at APP_URL. Each test runs six times over, so that tests of different workers
 * overlap on the one server.
 */
const mock = new URL(process.env.MOCK_URL ?? "http://127.0.0.1:8010");

export default defineConfig({
  testDir: ".",
  testMatch: "shared-server.spec.ts",
  outputDir: path.join(tmpdir(), "analytics-mock-shared-server-results"),
  workers: 3,
  repeatEach: 6,
  reporter: [["list"]],
  timeout: 60_000,
  expect: { timeout: 15_000 },
  webServer: {
    command: `node dist/main.mjs --in-memory --port ${mock.port} --fixtures capture`,
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    url: `${mock.origin}/_mock/scenarios/`,
    reuseExistingServer: false,
    timeout: 60_000,
  },
  use: {
    baseURL: process.env.APP_URL,
    browserName: "chromium",
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH,
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    },
  },
});
