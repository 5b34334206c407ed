import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { projectFile } from "../util/project-files.ts";

const SCENARIO_DIR = projectFile("fixtures/scenarios");

/**
 * What each bundled scenario is for, as the scenario list and the README say it. A test checks that every
 * file of fixtures/scenarios/ has a line here and every line a file.
 */
export const SCENARIO_DESCRIPTIONS: Readonly<Record<string, string>> = {
  basic: "The analytics reference's small dataset: three projects, four persons, twelve events, four saved insights.",
  capture: "Projects with explicit api_tokens (phc_test_capture_token_0001) for the capture and flags endpoints, and a few flags.",
  features: "Project 1 with every client feature on (replay, console logs, performance, exception autocapture, heatmaps, surveys); project 2 with all off.",
  funnels: "Seven shop customers' sign-up → project → purchase journeys, with a saved funnel and retention.",
  groups: "Companies and workspaces for group analytics: group-aggregated funnels, unique_group, group breakdowns and filters.",
  sessions: "Events grouped in sessions ($session_id) for session breakdowns, session properties and the sessions table.",
};

/** The bundled scenarios (fixtures/scenarios/*.json) by name: absolute paths, so they work from any working directory. */
export const scenarios: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries(
    readdirSync(SCENARIO_DIR)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => [f.slice(0, -".json".length), path.join(SCENARIO_DIR, f)]),
  ),
);

export const scenarioNames = (): string[] => Object.keys(scenarios);

/** A bundled scenario's file by name; own names only, so `toString` or `__proto__` names none. */
export const scenarioFile = (name: string): string | undefined => (Object.hasOwn(scenarios, name) ? scenarios[name] : undefined);

/** The scenario list as `GET /_mock/scenarios/` answers it. */
export const scenarioList = () => scenarioNames().map((name) => ({ name, description: SCENARIO_DESCRIPTIONS[name] ?? "" }));

/**
 * `--fixtures NAME`: a bundled scenario's file when NAME is one and no file of that name exists where it was
 * looked for (a file always wins, so an existing `./basic` is still read); else the path as given.
 */
export function fixturesFileOf(value: string, cwd: string): string {
  const asPath = path.resolve(cwd, value);
  const bundled = scenarioFile(value);
  return bundled && !existsSync(asPath) ? bundled : asPath;
}
