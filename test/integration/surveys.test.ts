/**
 * The surveys API, the public `/api/surveys/` posthog-js reads, remote config's `surveys`, and the results, on
 * basic.json (frozen at 2024-03-05T12:00Z; project 1 has flag 2 `checkout-experiment` with variants control/green).
 * Shapes follow PostHog `posthog/api/test/test_survey.py` (each case names the test). Every response is validated
 * against its document (openapi.yaml, capture.yaml).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { startServer as startEmbedded } from "../../src/index.ts";
import { analyticsHandle } from "../../src/playwright/analytics.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { callControl } from "../support/control-contract.ts";
import { callServer, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const token = () => s.store.projects.get("1")!.api_token;
const openQuestion = { type: "open", question: "What do you think of the new notebooks feature?" };

async function create(body: Record<string, unknown>) {
  const res = await s.post(`${P}/surveys/`, { type: "popover", questions: [openQuestion], ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
const remoteSurveys = async () => (await captureRequest(s.base, "GET", `/array/${token()}/config`)).body.surveys;
const publicSurveys = async () => (await captureRequest(s.base, "GET", `/api/surveys/?token=${token()}`)).body.surveys as { id: string }[];

describe("creating and updating (test_survey.py)", () => {
  it("test_can_create_basic_survey / test_create_adds_user_interactivity_filters: the fields, a question id, an inactive internal flag that launching activates", async () => {
    const created = await create({ name: "Notebooks beta release survey", description: "Get feedback on the new notebooks feature", targeting_flag_filters: null });
    expect(created).toMatchObject({ name: "Notebooks beta release survey", description: "Get feedback on the new notebooks feature", type: "popover", created_by: { id: 1 }, start_date: null, archived: false });
    expect(created.questions).toEqual([{ ...openQuestion, id: expect.stringMatching(/^[0-9a-f-]{36}$/) }]);
    expect(created.internal_targeting_flag.filters).toEqual({
      groups: [
        {
          variant: "",
          rollout_percentage: 100,
          properties: [
            { key: `$survey_dismissed/${created.id}`, type: "person", value: "is_not_set", operator: "is_not_set" },
            { key: `$survey_responded/${created.id}`, type: "person", value: "is_not_set", operator: "is_not_set" },
          ],
        },
      ],
      payloads: {},
    });
    expect(created.internal_targeting_flag.active).toBe(false);
    const launched = (await s.patch(`${P}/surveys/${created.id}/`, { start_date: "2024-03-04T12:00:00Z" })).body;
    expect(launched.internal_targeting_flag.active).toBe(true);
    expect(launched.questions).toEqual(created.questions);
    expect((await s.get(`${P}/surveys/${created.id}/`)).body).toEqual(launched);
    expect((await s.get(`${P}/surveys/`)).body).toMatchObject({ count: 1, results: [{ id: created.id }] });
  });

  it("test_can_create_survey_with_linked_flag_and_targeting: a linked flag and a survey-targeting flag made from the filters", async () => {
    const filters = { groups: [{ variant: null, rollout_percentage: null, properties: [{ key: "billing_plan", value: ["cloud"], operator: "exact", type: "person" }] }] };
    const created = await create({ name: "Notebooks power users survey", linked_flag_id: 2, targeting_flag_filters: filters, conditions: { url: "https://app.posthog.com/notebooks" } });
    expect(created.linked_flag.id).toBe(2);
    expect(created.targeting_flag.key).toMatch(/^survey-targeting-[a-z0-9]+$/);
    expect(created.targeting_flag.filters).toEqual({ ...filters, payloads: {} });
    expect(created.conditions).toEqual({ url: "https://app.posthog.com/notebooks" });
    expect(created.feature_flag_keys).toEqual([
      { key: "linked_flag_key", value: "checkout-experiment" },
      { key: "targeting_flag_key", value: created.targeting_flag.key },
      { key: "internal_targeting_flag_key", value: created.internal_targeting_flag.key },
      { key: "internal_response_sampling_flag_key", value: null },
    ]);
  });

  it("refuses what the real serializer refuses, naming the field where it does", async () => {
    await create({ name: "Taken" });
    const cases: [Record<string, unknown>, string | null, string][] = [
      [{ name: "Taken" }, null, "There is already a survey with this name."],
      [{ name: "x", questions: [{ type: "open" }] }, "questions", "Question text is required"],
      [{ name: "x", questions: [{ type: "link", question: "q", link: "http://example.com" }] }, "questions", "Link must be a URL with one of these schemes: [https, mailto]"],
      [{ name: "x", questions: [{ type: "single_choice", question: "q", choices: ["a", " "] }] }, "questions", "Question choices cannot be empty"],
      [{ name: "x", linked_flag_id: 999 }, null, "Feature Flag with this ID does not exist"],
      [{ name: "x", linked_flag_id: 2, conditions: { linkedFlagVariant: "blue" } }, null, "Feature flag variant 'blue' does not exist. Available variants: control, green"],
      [{ name: "x", targeting_flag_filters: { groups: [{ properties: [], rollout_percentage: 100 }] } }, null, "Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting"],
      [{ name: "x", type: "external_survey", linked_flag_id: 2 }, "linked_flag_id", "linked_flag_id is not allowed for external surveys"],
    ];
    for (const [body, attr, detail] of cases) {
      const res = await s.post(`${P}/surveys/`, { type: "popover", ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ type: "validation_error", attr, detail });
    }
    const bounds = await s.post(`${P}/surveys/`, { name: "x", type: "popover", iteration_count: 501 });
    expect(bounds.status).toBe(400);
    expect(bounds.body.attr).toBe("iteration_count");
  });

  it("deletes a survey and its flags", async () => {
    const created = await create({ name: "Gone" });
    expect((await s.del(`${P}/surveys/${created.id}/`)).status).toBe(204);
    expect((await s.get(`${P}/surveys/${created.id}/`)).status).toBe(404);
    expect(s.store.flags.get("1", created.internal_targeting_flag.id)).toBeUndefined();
  });
});

describe("what posthog-js reads", () => {
  it("lists surveys that are not archived at /api/surveys/, and remote config says surveys while one runs", async () => {
    expect((await captureRequest(s.base, "GET", "/api/surveys/")).status).toBe(401);
    expect((await captureRequest(s.base, "GET", "/api/surveys/?token=phc_nobody")).status).toBe(401);
    expect(await remoteSurveys()).toBe(false);
    const draft = await create({ name: "Draft" });
    const running = await create({ name: "Running", start_date: "2024-03-04T12:00:00Z" });
    expect(await remoteSurveys()).toBe(true);
    const listed = await captureRequest(s.base, "GET", `/api/surveys/?token=${token()}`);
    expect(listed.headers.get("access-control-allow-origin")).toBeNull();
    expect(listed.body.surveys.map((x: { id: string }) => x.id)).toEqual([draft.id, running.id]);
    expect(listed.body.surveys[1]).toMatchObject({ name: "Running", type: "popover", internal_targeting_flag_key: running.internal_targeting_flag.key, start_date: "2024-03-04T12:00:00.000Z", end_date: null });
    expect(listed.body.surveys[1]).not.toHaveProperty("linked_flag_key");
    await s.patch(`${P}/surveys/${running.id}/`, { end_date: "2024-03-05T11:00:00Z" });
    expect(await remoteSurveys()).toBe(false);
    await s.patch(`${P}/surveys/${draft.id}/`, { archived: true });
    expect((await publicSurveys()).map((x) => x.id)).toEqual([running.id]);
  });
});

describe("results", () => {
  const event = (name: string, distinct_id: string, properties: Record<string, unknown>, timestamp: string) => ({ event: name, distinct_id, properties, timestamp });

  it("counts shown, dismissed and sent as the real stats endpoint, and responses per survey", async () => {
    const survey = await create({ name: "Rated", start_date: "2024-03-01T00:00:00Z" });
    const other = "0190b8a2-7c00-7000-8000-00000000ffff";
    const sid = { $survey_id: survey.id };
    const batch = [
      event("survey shown", "a", sid, "2024-03-02T10:00:00Z"),
      event("survey shown", "b", sid, "2024-03-02T11:00:00Z"),
      event("survey shown", "c", sid, "2024-03-02T12:00:00Z"),
      event("survey shown", "c", sid, "2024-03-02T13:00:00Z"),
      // a answers in two parts of one submission: one response.
      event("survey sent", "a", { ...sid, $survey_submission_id: "s1", $survey_response: "meh" }, "2024-03-02T10:01:00Z"),
      event("survey sent", "a", { ...sid, $survey_submission_id: "s1", $survey_response: "good" }, "2024-03-02T10:02:00Z"),
      // b dismisses then answers: counted as answering only; c dismisses after a partial answer: not a dismissal.
      event("survey dismissed", "b", sid, "2024-03-02T11:01:00Z"),
      event("survey sent", "b", { ...sid, $survey_response: "ok" }, "2024-03-02T11:02:00Z"),
      event("survey dismissed", "c", { ...sid, $survey_partially_completed: true }, "2024-03-02T12:01:00Z"),
      event("survey sent", "c", { $survey_id: other }, "2024-03-02T12:02:00Z"),
    ];
    const sent = await captureRequest(s.base, "POST", "/batch/", { body: JSON.stringify({ api_key: token(), batch }), headers: { "content-type": "application/json" } });
    expect(sent.status).toBe(200);
    const stats = (await s.get(`${P}/surveys/${survey.id}/stats/`)).body;
    // shown 4 by a, b, c; sent 2 (a once, b) by 2 persons; dismissed 1 by b, who also answered: 0 unique.
    expect(stats.stats["survey shown"]).toEqual({ total_count: 4, unique_persons: 3, first_seen: "2024-03-02T10:00:00Z", last_seen: "2024-03-02T13:00:00Z", unique_persons_only_seen: 1, total_count_only_seen: 1 });
    expect(stats.stats["survey sent"]).toMatchObject({ total_count: 2, unique_persons: 2, first_seen: "2024-03-02T10:02:00Z", last_seen: "2024-03-02T11:02:00Z" });
    expect(stats.stats["survey dismissed"]).toMatchObject({ total_count: 1, unique_persons: 0 });
    // 2/4 = 50 %, 1/4 = 25 %, 2/3 = 66.67 %, 0/3 = 0 %.
    expect(stats.rates).toEqual({ response_rate: 50, dismissal_rate: 25, unique_users_response_rate: 66.67, unique_users_dismissal_rate: 0 });
    expect(stats).toMatchObject({ survey_id: survey.id, start_date: "2024-03-01T00:00:00.000Z", end_date: null });
    const later = (await s.get(`${P}/surveys/${survey.id}/stats/?date_from=2024-03-02T11:30:00Z`)).body;
    expect(later.stats["survey shown"].total_count).toBe(2);
    expect((await s.get(`${P}/surveys/${survey.id}/stats/?date_from=2024-03-03&date_to=2024-03-02`)).body).toMatchObject({ detail: "date_from must be before date_to", attr: null });
    const notIso = await s.get(`${P}/surveys/stats/?date_from=-7d`);
    expect([notIso.status, notIso.body.attr]).toEqual([400, "date_from"]);
    expect((await s.get(`${P}/surveys/responses_count/`)).body).toEqual({ [survey.id]: 2, [other]: 1 });
    expect((await s.get(`${P}/surveys/stats/`)).body.stats["survey sent"].total_count).toBe(2);
  });
});

describe("forcing a survey for one distinct id, and waiting for its response (control API)", () => {
  const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { "content-type": "application/json" } });
  const flagsOf = async (distinct_id: string) => (await captureRequest(s.base, "POST", "/flags/?v=2", json({ token: token(), distinct_id }))).body.flags as Record<string, { enabled: boolean; variant: string | null }>;

  it("shows a draft survey to that distinct id alone until a reset, with its linked variant and flags forced on", async () => {
    const filters = { groups: [{ variant: null, rollout_percentage: 100, properties: [{ key: "billing_plan", value: ["cloud"], operator: "exact", type: "person" }] }] };
    const draft = await create({ name: "Forced", linked_flag_id: 2, conditions: { linkedFlagVariant: "green" }, targeting_flag_filters: filters });
    expect(await remoteSurveys()).toBe(false);
    const forced = await callControl(s.base, "POST", "/surveys/force/", { survey_id: draft.id, distinct_id: "tester" });
    expect(forced.status).toBe(201);
    const gate = `survey-targeting-forced-${draft.id}`;
    expect(forced.body).toMatchObject({ survey_id: draft.id, distinct_id: "tester", project_id: "1" });
    expect(forced.body.forced_flags.map((f: { key: string; value: unknown }) => [f.key, f.value])).toEqual([
      [gate, true],
      ["checkout-experiment", "green"],
      [draft.targeting_flag.key, true],
      [draft.internal_targeting_flag.key, true],
    ]);
    // A draft: listed as running since the frozen now (2024-03-05T12:00Z), behind the gate.
    expect((await publicSurveys())[0]).toMatchObject({ id: draft.id, start_date: "2024-03-05T12:00:00.000Z", end_date: null, targeting_flag_key: gate, linked_flag_key: "checkout-experiment" });
    expect(await remoteSurveys()).toBe(true);
    const tester = await flagsOf("tester");
    expect([tester[gate]?.enabled, tester["checkout-experiment"]?.variant, tester[draft.targeting_flag.key]?.enabled]).toEqual([true, "green", true]);
    // Anyone else: no gate, and the draft's targeting flag is inactive (not answered at all).
    const other = await flagsOf("someone-else");
    expect(other[gate]).toBeUndefined();
    expect(other[draft.targeting_flag.key]).toBeUndefined();
    expect((await callControl(s.base, "POST", "/reset/")).status).toBe(200);
    expect((await callControl(s.base, "GET", "/feature_flags/")).body.results).toEqual([]);
    expect(await remoteSurveys()).toBe(false);
  });

  it("refuses an unknown survey (404) and a missing distinct id (400 naming it)", async () => {
    expect((await callControl(s.base, "POST", "/surveys/force/", { survey_id: "nope", distinct_id: "tester" })).status).toBe(404);
    const missing = await callControl(s.base, "POST", "/surveys/force/", { survey_id: "nope" });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ type: "validation_error", attr: "distinct_id" });
  });

  it("the captured wait answers a survey's response: `survey sent` with its `$survey_id`", async () => {
    const survey = await create({ name: "Answered", start_date: "2024-03-04T12:00:00Z" });
    const sent = { event: "survey sent", distinct_id: "tester", properties: { $survey_id: survey.id, [`$survey_response_${survey.questions[0].id}`]: "Great" } };
    await captureRequest(s.base, "POST", "/batch/", json({ api_key: token(), batch: [{ ...sent, properties: { $survey_id: "another" } }, sent] }));
    const waited = await callControl(s.base, "POST", "/captured/wait/", { event: "survey sent", properties: { $survey_id: survey.id }, timeout_ms: 0 });
    expect(waited.body).toMatchObject({ status: "matched", count: 1 });
    expect(waited.body.events[0].properties[`$survey_response_${survey.questions[0].id}`]).toBe("Great");
  });
});

describe("the embedding API and the Playwright kit", () => {
  it("force a survey for one distinct id until reset, and wait for its response", async () => {
    const server = await startEmbedded({ scenario: "features", port: 0 });
    try {
      const analytics = analyticsHandle(server);
      const surveyId = "01900000-0000-7000-8000-5e0000000001";
      // A fixture survey has no flags of its own: the gate is the one forced value.
      expect(analytics.surveys.force(surveyId, "kit-user").forced_flags.map((f) => [f.key, f.value, f.distinct_id])).toEqual([[`survey-targeting-forced-${surveyId}`, true, "kit-user"]]);
      expect(() => analytics.surveys.force("nope", "kit-user")).toThrow();
      const waiting = analytics.surveys.waitForResponse(surveyId, { distinct_id: "kit-user", timeout_ms: 10_000 });
      const batch = [{ event: "survey sent", distinct_id: "kit-user", properties: { $survey_id: surveyId, $survey_response_0: 4 } }];
      await captureRequest(server.url, "POST", "/batch/", { body: JSON.stringify({ api_key: "phc_test_features_token_0001", batch }), headers: { "content-type": "application/json" } });
      expect(await waiting).toMatchObject({ status: "matched", count: 1 });
      expect(await analytics.surveys.waitForResponse(surveyId, { distinct_id: "someone-else", timeout_ms: 0 })).toMatchObject({ status: "timed_out", count: 0 });
      await server.reset();
      expect(server.flags.list()).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

describe("fixtures", () => {
  it("loads a document's surveys as the API stores them, opting their project in", async () => {
    const doc = scenario("basic");
    doc.surveys = [{ project_id: "1", name: "From fixture", type: "popover", questions: [{ type: "rating", question: "Rate us", display: "number", scale: 5 }], start_date: "2024-03-01T00:00:00Z" }];
    await s.close();
    s = await startTestServer(doc);
    const listed = (await s.get(`${P}/surveys/`)).body.results;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ name: "From fixture", type: "popover", start_date: "2024-03-01T00:00:00.000Z", schedule: "once", archived: false });
    expect(listed[0].questions[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await remoteSurveys()).toBe(true);
  });

  it("features.json ships a running popover survey, shown on pages whose URL holds /feedback", async () => {
    await s.close();
    s = await startTestServer(scenario("features"));
    const listed = await publicSurveys();
    expect(listed).toEqual([
      expect.objectContaining({
        id: "01900000-0000-7000-8000-5e0000000001",
        name: "Pricing feedback",
        type: "popover",
        start_date: "2024-04-01T00:00:00.000Z",
        end_date: null,
        conditions: { url: "/feedback", urlMatchType: "icontains" },
      }),
    ]);
    expect((listed[0] as { questions?: { type: string }[] }).questions?.map((q) => q.type)).toEqual(["rating", "open"]);
    expect(await remoteSurveys()).toBe(true);
  });
});

describe("across a restart", () => {
  it("keeps the surveys, their flags, their responses and the opt-in of a server with a data file", async () => {
    const basic = fileURLToPath(new URL("../../fixtures/scenarios/basic.json", import.meta.url));
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-surveys-")), "db.json");
    const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));
    let running: StartedServer = await start(["--data", data, "--fixtures", basic, "--now", "2024-03-05T12:00:00Z"]);
    const call = (method: string, p: string, body?: unknown) => callServer(running.url, method, p, body);
    const config = async () => (await captureRequest(running.url, "GET", `/array/${token()}/config`)).body.surveys;
    try {
      const filters = { groups: [{ variant: null, rollout_percentage: 50, properties: [] }] };
      const survey = (await call("POST", `${P}/surveys/`, { name: "Kept", type: "popover", questions: [openQuestion], targeting_flag_filters: filters, start_date: "2024-03-01T00:00:00Z" })).body;
      const batch = [{ event: "survey sent", distinct_id: "kept-1", properties: { $survey_id: survey.id, $survey_response: "yes" }, timestamp: "2024-03-04T10:00:00Z" }];
      expect((await captureRequest(running.url, "POST", "/batch/", { body: JSON.stringify({ api_key: token(), batch }), headers: { "content-type": "application/json" } })).status).toBe(200);
      expect(await config()).toBe(true);
      await running.close();
      running = await start(["--data", data, "--now", "2024-03-05T13:00:00Z"]);
      expect((await call("GET", `${P}/surveys/${survey.id}/`)).body).toEqual(survey);
      expect((await call("GET", `${P}/feature_flags/${survey.targeting_flag.id}/`)).body.filters.groups).toEqual(filters.groups);
      // One `survey sent` before the restart: one response after it.
      expect((await call("GET", `${P}/surveys/responses_count/`)).body).toEqual({ [survey.id]: 1 });
      expect(await config()).toBe(true);
    } finally {
      await running.close();
    }
  });
});
