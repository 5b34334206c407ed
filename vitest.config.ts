import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/build-dist.ts", "test/support/external-tools-setup.ts"],
    // The default report, then one line per external tool whose tests were skipped (and why).
    reporters: ["default", "./test/support/skip-summary-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // A slow, shared CI machine: no timing assertions anywhere, generous timeouts.
    pool: "forks",
  },
});
