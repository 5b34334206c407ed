/**
 * The cohorts API (the real service's `cohorts/`) on basic.json, frozen at 2024-03-05T12:00Z: project 1 holds
 * persons 1 (a, a-anon; plan pro), 2 (b; plan free), 3 (c; no plan) and the static cohort 1 "Paying" [1, 2];
 * flag 5 (paying-features) targets cohort 1. $pageviews: a-anon 03-01 08:00, c 03-01 11:00, a 03-01 15:00,
 * b 03-02 09:00, a 03-03 23:30. Every response is validated against the document.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureRequest } from "../support/capture-contract.ts";
import { OTHER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";
import { createClock } from "../../src/core/clock.ts";
import { stateFromFixtures } from "../../src/store/load-fixtures.ts";
import { readState, storeFiles } from "../../src/store/persistence.ts";
import { createStore } from "../../src/store/store.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const UUID = { 1: "84877a1c-03f2-5cfd-8633-cf112f0d565a", 2: "9dd14a38-6d58-5e65-a0b0-1d6918ba9ca6", 3: "013dafea-5553-5166-bba1-4d5d637c6839", 4: "2e8589d0-aa3c-5b17-8a4b-65c63daced83" };
const pageviewsWithin = (days: number, more: Record<string, unknown> = {}) => ({ key: "$pageview", value: "performed_event", event_type: "events", time_value: days, time_interval: "day", type: "behavioral", ...more });
const and = (...values: unknown[]) => ({ properties: { type: "AND", values } });
const ids = (res: { body: { results: { id: number }[] } }) => res.body.results.map((r) => r.id);

async function create(name: string, body: Record<string, unknown>) {
  const res = await s.post(`${P}/cohorts/`, { name, ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; count: number };
}
const members = async (id: number) => ids(await s.get(`${P}/cohorts/${id}/persons/`));

describe("listing and reading", () => {
  it("lists the project's cohorts with their real counts, filtered as the real list filters", async () => {
    const list = await s.get(`${P}/cohorts/`);
    expect(list.body).toMatchObject({ count: 1, results: [{ id: 1, name: "Paying", is_static: true, count: 2, is_calculating: false, cohort_type: "static", last_calculation: "2024-03-05T12:00:00.000Z" }] });
    await create("Recent viewers", { filters: and(pageviewsWithin(3)) });
    expect(ids(await s.get(`${P}/cohorts/`))).toEqual([2, 1]);
    expect(ids(await s.get(`${P}/cohorts/?search=RECENT`))).toEqual([2]);
    expect(ids(await s.get(`${P}/cohorts/?type=static`))).toEqual([1]);
    expect(ids(await s.get(`${P}/cohorts/?type=dynamic`))).toEqual([2]);
    expect(ids(await s.get(`${P}/cohorts/?hide_behavioral_cohorts=true`))).toEqual([1]);
    expect(ids(await s.get(`${P}/cohorts/?created_by_id=1`))).toEqual([2]);
    expect((await s.get(`${P}/cohorts/?limit=1`)).body.next).toContain("offset=1");
    expect((await s.get("/api/projects/2/cohorts/")).body.count).toBe(0);
  });

  it("refuses another project's reader, an unknown cohort and an undeclared parameter", async () => {
    expect((await s.get(`${P}/cohorts/`, { key: OTHER_KEY })).status).toBe(403);
    expect((await s.get(`${P}/cohorts/99/`)).status).toBe(404);
    expect((await s.get("/api/projects/2/cohorts/1/")).status).toBe(404);
    expect((await s.get(`${P}/cohorts/?type=everyone`)).body).toMatchObject({ attr: "type" });
  });

  it("pages the persons of a cohort in the persons list's shape", async () => {
    const page = await s.get(`${P}/cohorts/1/persons/?limit=1`);
    expect(page.body.results).toHaveLength(1);
    expect(page.body.results[0]).toMatchObject({ id: 1, uuid: UUID[1], distinct_ids: ["a", "a-anon"] });
    const next = new URL(page.body.next);
    expect(ids(await s.get(next.pathname + next.search))).toEqual([2]);
  });
});

describe("dynamic cohorts", () => {
  it.each([
    // Since 03-02 12:00 only a's 03-03 view counts.
    ["performed $pageview in the last 3 days", and(pageviewsWithin(3)), [1]],
    // Since 03-01 12:00: a (15:00, 03-03) and b (03-02); c's view at 11:00 is out.
    ["performed $pageview in the last 4 days", and(pageviewsWithin(4)), [1, 2]],
    ["did not perform $pageview in the last 4 days", and(pageviewsWithin(4, { negation: true })), [3]],
    // a has 3 views in the week (one as a-anon), b and c one each.
    ["performed $pageview at least twice in 7 days", and(pageviewsWithin(7, { value: "performed_event_multiple", operator: "gte", operator_value: 2 })), [1]],
    ["performed $pageview exactly once in 7 days", and(pageviewsWithin(7, { value: "performed_event_multiple", operator: "eq", operator_value: 1 })), [2, 3]],
    ["plan pro or no $pageview in 4 days", { properties: { type: "OR", values: [{ key: "plan", value: "pro", operator: "exact", type: "person" }, pageviewsWithin(4, { negation: true })] } }, [1, 3]],
    ["in Paying and not plan pro", and({ key: "id", value: 1, type: "cohort" }, { key: "plan", value: "pro", operator: "exact", type: "person", negation: true }), [2]],
    ["not in Paying", and({ key: "id", value: 1, type: "cohort", negation: true }), [3]],
  ])("%s", async (_, filters, want) => {
    const cohort = await create("c", { filters });
    expect(cohort.count).toBe(want.length);
    expect(await members(cohort.id)).toEqual(want);
  });

  it("follows new events and the clock, and a PATCH of its filters", async () => {
    const cohort = await create("Recent viewers", { filters: and(pageviewsWithin(3)) });
    const token = s.store.projects.get("1")!.api_token;
    const sent = await captureRequest(s.base, "POST", "/e/", { body: JSON.stringify({ token, event: "$pageview", distinct_id: "c", timestamp: "2024-03-05T11:00:00Z" }), headers: { "content-type": "application/json" } });
    expect(sent.status).toBe(200);
    expect(await members(cohort.id)).toEqual([1, 3]);
    const patched = await s.patch(`${P}/cohorts/${cohort.id}/`, { filters: and(pageviewsWithin(4)) });
    expect(patched.body).toMatchObject({ count: 3, cohort_type: "behavioral" });
    expect(await members(cohort.id)).toEqual([1, 2, 3]);
  });

  it("refuses what the real service refuses, naming filters", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, "This field is required."],
      [{ filters: and({ key: "plan", type: "person" }) }, "Missing required keys for person filter: value, operator"],
      [{ filters: and({ key: "id", value: 99, type: "cohort" }) }, "Invalid Cohort ID in filter"],
    ];
    for (const [body, detail] of cases) {
      const res = await s.post(`${P}/cohorts/`, { name: "x", ...body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: "validation_error", attr: "filters", detail });
    }
    // Behavioural conditions the server does not evaluate break the document's rules.
    for (const unsupported of [{ value: "performed_event_first_time" }, { event_type: "actions" }, { time_interval: "fortnight" }, { explicit_datetime: "-30d" }]) {
      const res = await s.post(`${P}/cohorts/`, { name: "x", filters: and(pageviewsWithin(3, unsupported)) });
      expect(res.status).toBe(400);
      expect(res.body.attr).toMatch(/^filters__properties__values__0/);
    }
    const a = await create("a", { filters: and({ key: "id", value: 1, type: "cohort" }) });
    const b = await create("b", { filters: and({ key: "id", value: a.id, type: "cohort" }) });
    const loop = await s.patch(`${P}/cohorts/${a.id}/`, { filters: and({ key: "id", value: b.id, type: "cohort" }) });
    expect(loop.body).toMatchObject({ attr: "filters", detail: "Cohorts cannot reference other cohorts in a loop." });
    expect((await s.post(`${P}/cohorts/`, { filters: and() })).body).toMatchObject({ code: "required", attr: "name" });
    expect((await s.post(`${P}/cohorts/`, { name: "x", filters: { properties: { type: "XOR", values: [] } } })).status).toBe(400);
    expect((await s.get(`${P}/cohorts/`)).body.count).toBe(3);
  });
});

describe("static cohorts", () => {
  it("takes members at creation by uuid, then adds and removes persons", async () => {
    const cohort = await create("Beta", { is_static: true, _create_static_person_ids: [UUID[3], "00000000-0000-4000-8000-000000000000"] });
    expect(cohort).toMatchObject({ count: 1, is_static: true, cohort_type: "static", filters: { properties: {} } });
    const add = await s.patch(`${P}/cohorts/${cohort.id}/add_persons_to_static_cohort/`, { person_ids: [UUID[1], UUID[3], UUID[4]] });
    expect(add.body).toEqual({ success: true });
    // Person 4 belongs to project 2: skipped.
    expect(await members(cohort.id)).toEqual([1, 3]);
    expect((await s.patch(`${P}/cohorts/${cohort.id}/remove_person_from_static_cohort/`, { person_id: UUID[3] })).body).toEqual({ success: true });
    expect(await members(cohort.id)).toEqual([1]);
    const again = await s.patch(`${P}/cohorts/${cohort.id}/remove_person_from_static_cohort/`, { person_id: UUID[3] });
    expect(again.body).toMatchObject({ code: "not_found", detail: "Person is not part of the cohort" });
    expect((await s.patch(`${P}/cohorts/${cohort.id}/remove_person_from_static_cohort/`, { person_id: UUID[4] })).status).toBe(404);
    const none = await s.patch(`${P}/cohorts/${cohort.id}/add_persons_to_static_cohort/`, { person_ids: [UUID[4]] });
    expect(none.body).toMatchObject({ attr: "person_ids", detail: "No valid users to add to cohort" });
    const entries = s.store.activity.list("1", "Cohort", String(cohort.id)).map((a) => a.activity);
    // Newest first; the refused calls logged nothing.
    expect(entries).toEqual(["person_removed_manually", "persons_added_manually", "created"]);
  });

  it("refuses member changes on a dynamic cohort and malformed ids", async () => {
    const dynamic = await create("d", { filters: and(pageviewsWithin(3)) });
    expect((await s.patch(`${P}/cohorts/${dynamic.id}/add_persons_to_static_cohort/`, { person_ids: [UUID[1]] })).body).toMatchObject({ detail: "Can only add users to static cohorts" });
    expect((await s.patch(`${P}/cohorts/${dynamic.id}/remove_person_from_static_cohort/`, { person_id: UUID[1] })).body).toMatchObject({ detail: "Can only remove users from static cohorts" });
    expect((await s.patch(`${P}/cohorts/1/add_persons_to_static_cohort/`, { person_ids: [] })).body).toMatchObject({ attr: "person_ids" });
    expect((await s.patch(`${P}/cohorts/1/remove_person_from_static_cohort/`, { person_id: "1" })).body).toMatchObject({ attr: "person_id" });
  });

  it("keeps a dynamic cohort's current members when it is made static", async () => {
    const cohort = await create("Recent viewers", { filters: and(pageviewsWithin(4)) });
    expect((await s.patch(`${P}/cohorts/${cohort.id}/`, { is_static: true })).body).toMatchObject({ is_static: true, count: 2 });
    expect(await members(cohort.id)).toEqual([1, 2]);
  });
});

/** A multipart form as the real web app sends it: fields, and the CSV as a file. */
async function form(method: string, url: string, fields: Record<string, string>, csv?: string) {
  const data = new FormData();
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  if (csv !== undefined) data.append("csv", new Blob([csv], { type: "text/csv" }), "cohort.csv");
  const encoded = new Request("http://form.invalid/", { method: "POST", body: data });
  return s.request(method, url, { raw: await encoded.text(), headers: { "content-type": encoded.headers.get("content-type")! } });
}

describe("CSV uploads", () => {
  it.each([
    ["distinct ids, one column without a header", "a\nc\nnobody\n", [1, 3]],
    ["emails under an email header", "Email\nb@corp.io\n\nc@example.com\n", [2, 3]],
    ["person uuids under a person_id header", `person_id\n${UUID[2]}\n`, [2]],
    ["the person_id column of several (preferred to distinct_id)", `distinct_id,person_id,name\nc,${UUID[1]},Ann\nb,"${UUID[2]}","Bob, Jr."\n`, [1, 2]],
    ["the distinct-id column of several, short rows skipped", "name,distinct-id\nAnn,a\nshort\n", [1]],
  ])("creates a static cohort from %s", async (_, csv, want) => {
    const res = await form("POST", `${P}/cohorts/`, { name: "Imported", is_static: "true" }, csv);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ is_static: true, count: want.length });
    expect(await members(res.body.id)).toEqual(want);
  });

  it("adds a file's persons to a static cohort's members on update, and refuses a file without ids", async () => {
    const res = await form("PATCH", `${P}/cohorts/1/`, { name: "Paying (imported)" }, "email\nc@example.com\n");
    expect(res.body).toMatchObject({ name: "Paying (imported)", count: 3 });
    const empty = await form("POST", `${P}/cohorts/`, { name: "x", is_static: "true" }, "email\n\n");
    expect(empty.body).toMatchObject({ attr: "csv", detail: expect.stringContaining("contains no valid person IDs") });
    const unnamed = await form("POST", `${P}/cohorts/`, { name: "x", is_static: "true" }, "a,b\n1,2\n");
    expect(unnamed.body).toMatchObject({ attr: "csv", detail: expect.stringContaining("Found columns: a, b") });
    // A dynamic cohort's filters come JSON-encoded in a form.
    const dynamic = await form("POST", `${P}/cohorts/`, { name: "Recent", filters: JSON.stringify(and(pageviewsWithin(4))) });
    expect(dynamic.body).toMatchObject({ is_static: false, count: 2 });
    expect((await s.get(`${P}/cohorts/`)).body.count).toBe(2);
  });

  it("answers a broken or oversized form with one 4xx", async () => {
    const noBoundary = await s.request("POST", `${P}/cohorts/`, { raw: "name=x", headers: { "content-type": "multipart/form-data" } });
    expect(noBoundary.body).toMatchObject({ type: "validation_error", code: "parse_error" });
    const cut = await s.request("POST", `${P}/cohorts/`, { raw: '--b\r\ncontent-disposition: form-data; name="name"\r\n\r\nx', headers: { "content-type": "multipart/form-data; boundary=b" } });
    expect(cut.status).toBe(400);
    const huge = await form("POST", `${P}/cohorts/`, { name: "x", is_static: "true" }, "a\n".repeat(600_000));
    expect(huge.body).toMatchObject({ code: "payload_too_large" });
    // Another operation does not read forms: the 415 of a body that is not JSON.
    expect((await form("POST", `${P}/feature_flags/`, { key: "x" })).status).toBe(415);
  });
});

describe("soft delete", () => {
  it("hides a deleted cohort from lists, reads, filters and the person's cohorts; a hard delete is 405", async () => {
    const cohort = await create("Recent viewers", { filters: and(pageviewsWithin(3)) });
    expect((await s.del(`${P}/cohorts/${cohort.id}/`)).status).toBe(405);
    const deleted = await s.patch(`${P}/cohorts/${cohort.id}/`, { deleted: true });
    expect(deleted.body).toMatchObject({ deleted: true, count: null });
    expect((await s.get(`${P}/cohorts/${cohort.id}/`)).status).toBe(404);
    expect(ids(await s.get(`${P}/cohorts/`))).toEqual([1]);
    expect((await s.get(`${P}/persons/?cohort=${cohort.id}`)).body).toMatchObject({ attr: "cohort" });
    expect((await s.get(`${P}/persons/cohorts/?person_id=1`)).body.results.map((c: { id: number }) => c.id)).toEqual([1]);
    const log = await s.get(`${P}/cohorts/${cohort.id}/activity/`);
    expect(log.body.results.map((a: { activity: string }) => a.activity)).toEqual(["deleted", "created"]);
    expect(log.body.results[0]).toMatchObject({ scope: "Cohort", item_id: String(cohort.id), detail: { changes: [{ field: "deleted", before: false, after: true }] } });
    expect((await s.get(`${P}/cohorts/activity/?limit=1`)).body).toMatchObject({ total_count: 2, results: [{ activity: "deleted" }] });
    expect((await s.get(`${P}/cohorts/99/activity/`)).status).toBe(404);
  });

  it("refuses to delete a cohort an active flag uses, as the real service does", async () => {
    const res = await s.patch(`${P}/cohorts/1/`, { deleted: true });
    expect(res.body).toMatchObject({
      type: "validation_error",
      detail: "This cohort is used in 1 active feature flag(s): For the Paying cohort. Please remove the cohort from these feature flags before deleting it.",
    });
    expect((await s.get(`${P}/cohorts/1/`)).status).toBe(200);
  });
});

describe("a cohort written through the API is used at once", () => {
  it("by property filters, cohort breakdowns, the persons list and a person's cohorts", async () => {
    const cohort = await create("Recent viewers", { filters: and(pageviewsWithin(4)) });
    const trend = { events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-05" };
    // Members a and b: a's three views and b's one; c's view is left out.
    const filtered = await s.post(`${P}/insights/trend/`, { ...trend, properties: [{ key: "id", value: cohort.id, type: "cohort" }] });
    expect(filtered.body.result[0].count).toBe(4);
    const broken = await s.post(`${P}/insights/trend/`, { ...trend, breakdown_type: "cohort", breakdown: [cohort.id, 1] });
    const byCohort = Object.fromEntries(broken.body.result.map((r: { breakdown_value: number; count: number }) => [r.breakdown_value, r.count]));
    // Paying is a and b as well.
    expect(byCohort).toEqual({ [cohort.id]: 4, 1: 4 });
    expect(ids(await s.get(`${P}/persons/?cohort=${cohort.id}`)).sort()).toEqual([1, 2]);
    expect((await s.get(`${P}/persons/cohorts/?person_id=2`)).body.results).toEqual([
      { id: 1, name: "Paying", count: 2 },
      { id: cohort.id, name: "Recent viewers", count: 2 },
    ]);
  });

  it("by feature flag conditions; behavioural cohorts are refused there, as the real service refuses them", async () => {
    const pro = await create("Pro", { filters: and({ key: "plan", value: "pro", operator: "exact", type: "person" }) });
    const recent = await create("Recent", { filters: and(pageviewsWithin(3)) });
    const target = (id: number) => ({ groups: [{ properties: [{ key: "id", value: id, operator: "in", type: "cohort" }], rollout_percentage: 100 }] });
    expect((await s.post(`${P}/feature_flags/`, { key: "pro-only", filters: target(pro.id) })).status).toBe(201);
    const token = s.store.projects.get("1")!.api_token;
    const proOnly = async (distinct_id: string) => {
      const res = await captureRequest(s.base, "POST", "/flags/?v=2", { body: JSON.stringify({ token, distinct_id }), headers: { "content-type": "application/json" } });
      return (res.body.flags as Record<string, { enabled: boolean }>)["pro-only"]!.enabled;
    };
    expect([await proOnly("a"), await proOnly("b")]).toEqual([true, false]);
    await s.patch(`${P}/cohorts/${pro.id}/`, { filters: and({ key: "plan", value: "free", operator: "exact", type: "person" }) });
    expect([await proOnly("a"), await proOnly("b")]).toEqual([false, true]);

    const refused = await s.post(`${P}/feature_flags/`, { key: "recent-only", filters: target(recent.id) });
    expect(refused.body).toEqual({ type: "validation_error", code: "behavioral_cohort_found", detail: "Cohort 'Recent' with filters on events cannot be used in feature flags.", attr: "filters" });
    const nested = await create("Pro or recent", { filters: { properties: { type: "OR", values: [{ key: "id", value: recent.id, type: "cohort" }] } } });
    expect((await s.post(`${P}/feature_flags/`, { key: "nested", filters: target(nested.id) })).body).toMatchObject({ code: "behavioral_cohort_found", detail: expect.stringContaining("'Recent'") });
    const gains = await s.patch(`${P}/cohorts/${pro.id}/`, { filters: and(pageviewsWithin(3)) });
    expect(gains.body).toMatchObject({ code: "behavioral_cohort_found", attr: "filters", detail: "Behavioral filters cannot be added to cohorts used in feature flags." });
    const through = await s.patch(`${P}/cohorts/${pro.id}/`, { filters: and({ key: "id", value: recent.id, type: "cohort" }) });
    expect(through.body).toMatchObject({ code: "behavioral_cohort_found", detail: "A cohort dependency (Recent) has filters based on events. These cohorts can't be used in feature flags." });
  });
});

describe("bundled scenarios", () => {
  it("funnels.json: behavioural cohorts over its purchases (cat 04-02, dan 04-02, ann 04-03, gus 04-04; now 04-05)", async () => {
    await s.close();
    s = await startTestServer(scenario("funnels"));
    const list = await s.get(`${P}/cohorts/`);
    expect(list.body.results.map((c: { id: number; count: number }) => [c.id, c.count])).toEqual([
      [2, 3],
      [1, 4],
    ]);
    expect(await members(1)).toEqual([1, 3, 4, 7]);
    expect(await members(2)).toEqual([2, 5, 6]);
  });
});

describe("persistence", () => {
  it("keeps cohorts and their members across a restart of the store", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "cohorts-"));
    try {
      const doc = scenario("basic");
      const clock = createClock(Date.parse(doc.now!));
      const files = storeFiles(path.join(dir, "db.json"));
      const first = await createStore(stateFromFixtures(doc, clock.now()), clock, files, { persist: true });
      const made = await first.cohorts.create("1", { name: "Beta", is_static: true }, [3], 1);
      await first.cohorts.addPersons(made, [1], 1);
      const again = await createStore((await readState(files))!, clock, files, { persist: false });
      expect(again.cohorts.get("1", made.id)).toMatchObject({ name: "Beta", is_static: true, person_ids: [1, 3] });
      expect(again.analysisData.cohorts("1").find((c) => c.id === made.id)?.person_ids).toEqual([1, 3]);
      // The next id follows the stored ones.
      expect((await again.cohorts.create("1", { name: "Next", is_static: true }, [], 1)).id).toBe(made.id + 1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
