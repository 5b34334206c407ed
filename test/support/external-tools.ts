import { describe, inject, it } from "vitest";

/**
 * Tools from outside npm that some test files need. The global set-up (`external-tools-setup.ts`) looks for
 * each once per run; a test file wraps what needs one in `<tool>.describe(...)`:
 *
 *   import { chromium } from "../support/external-tools.ts";
 *   chromium.describe("/docs in a browser", () => { beforeAll(...); it(...); });
 *
 * Found: the block runs. Missing on a developer's machine: the block is skipped, with one line naming the
 * tool and how to install it, and the run's summary counts the tests skipped for it. Missing under `CI=true`
 * or `ANALYTICS_MOCK_REQUIRE_ALL=1`: the block is one failing test carrying that line, so CI never skips silently.
 */
export const TOOLS = {
  chromium: {
    what: "a headless Chromium",
    install: "`npm ci` (it brings @sparticuz/chromium), or `apt-get install chromium` with CHROMIUM_PATH=/usr/bin/chromium",
  },
  java: {
    what: "Java 17 or later (Specmatic)",
    install: "`apt-get install openjdk-17-jre-headless`",
  },
} as const;

export type ToolName = keyof typeof TOOLS;

/** What the global set-up found: the executable to run, or why there is none. */
export type ToolStatus = { found: true; path: string; version: string } | { found: false; problem: string };

declare module "vitest" {
  export interface ProvidedContext {
    externalTools: Record<ToolName, ToolStatus>;
  }
}

/** The marker the summary reporter counts skipped tests by: "(skipped: chromium missing)". */
export const skipMarker = (name: ToolName) => `(skipped: ${name} missing)`;
export const SKIP_MARKER_PATTERN = /\(skipped: (\w+) missing\)/;

/** Whether a missing tool fails the run instead of skipping: CI and whoever asks for everything. */
export function toolsRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const on = (value: string | undefined) => value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
  return on(env.CI) || on(env.ANALYTICS_MOCK_REQUIRE_ALL);
}

export const missingLine = (name: ToolName, problem: string) => `${TOOLS[name].what} is missing (${problem}); install: ${TOOLS[name].install}`;

export interface ExternalTool {
  name: ToolName;
  /** The executable found (absolute path or a command name on PATH); throws when the tool is missing. */
  readonly path: string;
  readonly found: boolean;
  /** `describe` that runs only with the tool present (see above for what happens without it). */
  describe(title: string, body: () => void): void;
}

export function externalTool(name: ToolName): ExternalTool {
  const status = () => inject("externalTools")[name];
  return {
    name,
    get found() {
      return status().found;
    },
    get path() {
      const s = status();
      if (!s.found) throw new Error(missingLine(name, s.problem));
      return s.path;
    },
    describe(title, body) {
      const s = status();
      if (s.found) {
        describe(title, body);
        return;
      }
      const line = missingLine(name, s.problem);
      if (toolsRequired()) {
        describe(title, () => {
          it(`needs ${name}`, () => {
            throw new Error(`${line} (required: CI or ANALYTICS_MOCK_REQUIRE_ALL is set)`);
          });
        });
        return;
      }
      console.warn(`SKIPPED "${title}": ${line}`);
      describe.skip(`${title} ${skipMarker(name)}`, body);
    },
  };
}

export const chromium = externalTool("chromium");
export const java = externalTool("java");
