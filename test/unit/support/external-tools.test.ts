import { describe, expect, it } from "vitest";
import { missingLine, SKIP_MARKER_PATTERN, skipMarker, toolsRequired } from "../../support/external-tools.ts";

describe("when a missing external tool fails the run instead of being skipped", () => {
  const cases: [string, NodeJS.ProcessEnv, boolean][] = [
    ["a developer's shell", {}, false],
    ["CI=true (what .ci/run sets)", { CI: "true" }, true],
    ["CI=1", { CI: "1" }, true],
    ["CI=false", { CI: "false" }, false],
    ["CI empty", { CI: "" }, false],
    ["ANALYTICS_MOCK_REQUIRE_ALL=1", { ANALYTICS_MOCK_REQUIRE_ALL: "1" }, true],
    ["ANALYTICS_MOCK_REQUIRE_ALL=0", { ANALYTICS_MOCK_REQUIRE_ALL: "0" }, false],
  ];
  it.each(cases)("%s", (_name, env, required) => {
    expect(toolsRequired(env)).toBe(required);
  });
});

describe("what a skip says", () => {
  it("names the tool and how to install it, and the summary finds the tool in the skipped block's name", () => {
    expect(missingLine("java", "java not found")).toBe("Java 17 or later (Specmatic) is missing (java not found); install: `apt-get install openjdk-17-jre-headless`");
    expect(SKIP_MARKER_PATTERN.exec(`/docs in a browser ${skipMarker("chromium")} > lists the operations`)?.[1]).toBe("chromium");
  });
});
