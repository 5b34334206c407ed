import { readFile } from "node:fs/promises";
import { scenarios, type CapturedRequest, type EmbeddedServer, type FixtureDocument, type ForcedFlag, type ForcedFlagRequest, type ScenarioName } from "../index.ts";
import type { EventPattern, JudgedEvent, WaitAnswer, WaitRequest } from "../control/observe.ts";
import type { TrackingPlan } from "../control/tracking-plan.ts";
import type { RecordingWaitRequest, WaitedRecording } from "../control/recordings-wait.ts";
import { surveyResponsePattern } from "../control/survey-forcing.ts";
import type { ForcedSurvey } from "../index.ts";

/** What a Playwright test gets as `analytics`: the in-process server, reset before the test. */
export interface Analytics {
  /** The server's base URL: posthog-js's `api_host`. */
  readonly url: string;
  /** The first project's token (posthog-js's `init` key). */
  readonly token: string;
  /** The first project's id, for product API paths (`/api/projects/{id}/…`). */
  readonly projectId: string;
  /** The first user's personal API key (`Authorization: Bearer …`), or null when the state has none. */
  readonly apiKey: string | null;
  readonly server: EmbeddedServer;
  /** Flag values forced for this test (cleared by the next test's reset). */
  flags: { force(request: ForcedFlagRequest): ForcedFlag; clear(): void };
  /** Replaces the state with a bundled scenario by name, or a fixture document. */
  load(state: ScenarioName | FixtureDocument): Promise<void>;
  /** Events captured so far that match, oldest first, with the tracking plan's verdict. */
  captured(pattern?: EventPattern): JudgedEvent[];
  /** Capture and flags requests the server refused since the reset (a wrong token, a bad body), newest first. */
  refused(): CapturedRequest[];
  /** Waits on the server's long-poll (`POST /_mock/captured/wait/`) until events match or the timeout passes. */
  waitFor(request: WaitRequest): Promise<WaitAnswer>;
  /** Waits on `POST /_mock/recordings/wait/` until a session recording with at least `snapshots` rrweb events arrives. */
  waitForRecording(request?: RecordingWaitRequest): Promise<RecordingWaitAnswer>;
  /**
   * `force` shows a survey to one distinct id for this test (the next test's reset releases it);
   * `waitForResponse` waits for its `survey sent` (of `distinct_id`, when given) on the captured wait.
   */
  surveys: {
    force(surveyId: string, distinctId: string): ForcedSurvey;
    waitForResponse(surveyId: string, options?: { distinct_id?: string; timeout_ms?: number }): Promise<WaitAnswer>;
  };
  trackingPlan: { set(plan: TrackingPlan): void; clear(): void };
}

async function fixtureDocument(state: ScenarioName | FixtureDocument): Promise<FixtureDocument> {
  if (typeof state !== "string") return state;
  const file = scenarios[state];
  if (!file) throw new Error(`unknown scenario "${state}": the bundled ones are ${Object.keys(scenarios).join(", ")}`);
  return JSON.parse(await readFile(file, "utf8")) as FixtureDocument;
}

/** The long-poll over HTTP, as any test client would call it (also from another process). */
export async function waitOverHttp(url: string, request: WaitRequest): Promise<WaitAnswer> {
  const res = await fetch(`${url}/_mock/captured/wait/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  const body = (await res.json()) as WaitAnswer & { detail?: string };
  if (!res.ok) throw new Error(`POST /_mock/captured/wait/ answered ${res.status}: ${body.detail ?? JSON.stringify(body)}`);
  return body;
}

export type RecordingWaitAnswer = { status: "matched" | "timed_out"; recordings: WaitedRecording[] };

/** The recordings long-poll over HTTP. */
export async function waitForRecordingOverHttp(url: string, request: RecordingWaitRequest): Promise<RecordingWaitAnswer> {
  const res = await fetch(`${url}/_mock/recordings/wait/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(request) });
  const body = (await res.json()) as RecordingWaitAnswer & { detail?: string };
  if (!res.ok) throw new Error(`POST /_mock/recordings/wait/ answered ${res.status}: ${body.detail ?? JSON.stringify(body)}`);
  return body;
}

/** The handle over a running embedded server; credentials are read from its current state. */
export function analyticsHandle(server: EmbeddedServer): Analytics {
  return {
    url: server.url,
    server,
    get token() {
      return server.credentials().token;
    },
    get projectId() {
      return server.credentials().project_id;
    },
    get apiKey() {
      return server.credentials().api_key;
    },
    flags: { force: (request) => server.flags.force(request), clear: () => server.flags.clear() },
    load: async (state) => {
      await server.loadFixtures(await fixtureDocument(state));
    },
    captured: (pattern) => server.captured.events(pattern),
    refused: () => server.captured.refused(),
    waitFor: (request) => waitOverHttp(server.url, request),
    waitForRecording: (request = {}) => waitForRecordingOverHttp(server.url, request),
    trackingPlan: { set: (plan) => void server.captured.plan.set(plan), clear: () => server.captured.plan.clear() },
    surveys: {
      force: (survey_id, distinct_id) => server.surveys.force({ survey_id, distinct_id }),
      waitForResponse: (survey_id, { distinct_id, timeout_ms } = {}) =>
        waitOverHttp(server.url, { ...surveyResponsePattern({ survey_id, distinct_id }), count: 1, ...(timeout_ms !== undefined && { timeout_ms }) }),
    },
  };
}
