import type { Reporter, TestModule } from "vitest/node";
import { SKIP_MARKER_PATTERN, TOOLS, type ToolName } from "./external-tools.ts";

/**
 * Ends the run with what was skipped for a missing external tool, one line per tool, after vitest's own
 * summary (whose "skipped" count does not say why): "skipped 2 tests: chromium missing (install: …)".
 */
export default class SkipSummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped = new Map<ToolName, number>();
    for (const module of testModules) {
      for (const test of module.children.allTests("skipped")) {
        const tool = SKIP_MARKER_PATTERN.exec(test.fullName)?.[1] as ToolName | undefined;
        if (tool && tool in TOOLS) skipped.set(tool, (skipped.get(tool) ?? 0) + 1);
      }
    }
    if (skipped.size) process.stdout.write("\n");
    for (const [tool, count] of skipped) {
      process.stdout.write(`\x1b[33mskipped ${count} test${count === 1 ? "" : "s"}: ${tool} missing (install: ${TOOLS[tool].install})\x1b[0m\n`);
    }
    if (skipped.size) process.stdout.write("(CI=true or ANALYTICS_MOCK_REQUIRE_ALL=1 makes a missing tool a failure)\n");
  }
}
