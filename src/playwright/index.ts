/**
 * `analytics-mock/playwright`: a Playwright test fixture that runs analytics-mock in each worker, resets it
 * before every test, and matchers that wait for what the page sends.
 *
 *   import { test, expect } from "analytics-mock/playwright";
 *   test("buying is tracked", async ({ page, analytics }) => {
 *     ...
 *     await expect(analytics).toHaveCaptured({ event: "clicked buy", properties: { price: 12 } });
 *   });
 */
import { startServer, type EmbeddedServer, type ServerOptions } from "../index.ts";
import { analyticsHandle, type Analytics } from "./analytics.ts";
import { analyticsMatchers } from "./matchers.ts";
import type { TrackingPlan } from "../control/tracking-plan.ts";
import { loadPlaywrightTest } from "./playwright-test.ts";

export type { Analytics } from "./analytics.ts";
export type { EventPattern, JudgedEvent, WaitAnswer, WaitRequest } from "../control/observe.ts";
export type { TrackingPlan } from "../control/tracking-plan.ts";
export type { RecordingWaitRequest, WaitedRecording } from "../control/recordings-wait.ts";
export type { RecordingWaitAnswer } from "./analytics.ts";
export { exceptionPattern, type ExceptionPattern } from "../control/exception-pattern.ts";
export { surveyResponsePattern, type SurveyResponsePattern } from "../control/survey-forcing.ts";

/** How each worker's server starts (`test.use({ analyticsOptions: … })`); by default the bundled `capture` scenario. */
export type AnalyticsOptions = Omit<ServerOptions, "port">;

/** The tracking plan each worker's server started with: a test's own plan goes at the next reset, this one stays. */
const startupPlans = new WeakMap<EmbeddedServer, TrackingPlan | null>();

const { test: base, expect: baseExpect } = loadPlaywrightTest();

export const test = base.extend<{ analytics: Analytics }, { analyticsOptions: AnalyticsOptions; analyticsServer: EmbeddedServer }>({
  analyticsOptions: [{ scenario: "capture" }, { scope: "worker", option: true }],
  analyticsServer: [
    async ({ analyticsOptions }, use) => {
      const server = await startServer({ ...analyticsOptions, port: 0 });
      startupPlans.set(server, server.captured.plan.get());
      await use(server);
      await server.close();
    },
    { scope: "worker" },
  ],
  analytics: async ({ analyticsServer: server }, use) => {
    await server.reset();
    server.captured.clear();
    server.clearRequests();
    const plan = startupPlans.get(server) ?? null;
    if (plan) server.captured.plan.set(plan);
    else server.captured.plan.clear();
    await use(analyticsHandle(server));
  },
});

/** Playwright's `expect` with `toHaveCaptured`, `toHaveCapturedTimes`, `toHaveOnlyValidEvents`, `toHaveRecorded`, `toHaveCapturedException` and `toHaveSurveyResponse`. */
export const expect = baseExpect.extend(analyticsMatchers);
