/**
 * `POST /insights/viewed/` (beyond the spec: the real service's web app reports the insights a page showed), on
 * basic.json: project 1 holds insights 1 "Pageviews", 2 "Signup funnel" and 3 "Old draft" (deleted); project 2
 * holds insight 4. The owner (user 1) is a member of both projects, user 2 of project 2 only.
 * Every response is validated against the document.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OTHER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const P = "/api/projects/1";
const ids = (body: { id: number }[]) => body.map((i) => i.id);

describe("recording views of several insights", () => {
  it("answers 201 without a body and puts them first in the caller's my_last_viewed", async () => {
    expect((await s.get(`${P}/insights/my_last_viewed/`)).body).toEqual([]);
    const res = await s.post(`${P}/insights/viewed/`, { insight_ids: [2, 1] });
    expect(res.status).toBe(201);
    expect(res.text).toBe("");
    // Same instant for both: the one listed last was seen last, so it comes first.
    expect(ids((await s.get(`${P}/insights/my_last_viewed/`)).body)).toEqual([1, 2]);
    await s.post(`${P}/insights/viewed/`, { insight_ids: [2] });
    expect(ids((await s.get(`${P}/insights/my_last_viewed/`)).body)).toEqual([2, 1]);
  });

  it("shares the record with the single-insight door: one view per user and insight", async () => {
    await s.post(`${P}/insights/viewed/`, { insight_ids: [1, 1, 2] });
    await s.post(`${P}/insights/1/viewed/`, {});
    expect(ids((await s.get(`${P}/insights/my_last_viewed/`)).body)).toEqual([1, 2]);
    // One viewer each, both at the frozen instant: the newer id first.
    const trending = (await s.get(`${P}/insights/trending/`)).body.results;
    expect(trending.map((t: { id: number; view_count: number }) => [t.id, t.view_count])).toEqual([
      [2, 1],
      [1, 1],
    ]);
  });

  it("feeds trending: views by two users count two", async () => {
    await s.post(`/api/projects/2/insights/viewed/`, { insight_ids: [4] });
    await s.post(`/api/projects/2/insights/viewed/`, { insight_ids: [4] }, { key: OTHER_KEY });
    const [top] = (await s.get(`/api/projects/2/insights/trending/`)).body.results;
    expect(top).toMatchObject({ id: 4, view_count: 2 });
    expect(top.viewers.map((u: { id: number }) => u.id).sort()).toEqual([1, 2]);
    expect(ids((await s.get(`/api/projects/2/insights/my_last_viewed/`, { key: OTHER_KEY })).body)).toEqual([4]);
  });

  it("skips deleted, unknown and other projects' insights", async () => {
    const res = await s.post(`${P}/insights/viewed/`, { insight_ids: [3, 4, 999, 1] });
    expect(res.status).toBe(201);
    expect(ids((await s.get(`${P}/insights/my_last_viewed/`)).body)).toEqual([1]);
    expect((await s.get(`/api/projects/2/insights/my_last_viewed/`)).body).toEqual([]);
  });

  it("refuses a body without ids, an empty list and ids that are not integers, naming the field", async () => {
    for (const [body, attr] of [
      [{}, "insight_ids"],
      [{ insight_ids: [] }, "insight_ids"],
      [{ insight_ids: ["one"] }, "insight_ids__0"],
      [{ insight_ids: [1], extra: true }, "extra"],
    ] as const) {
      const res = await s.post(`${P}/insights/viewed/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ type: "validation_error", attr });
    }
    expect((await s.get(`${P}/insights/my_last_viewed/`)).body).toEqual([]);
  });

  it("is 403 in a project the caller is not a member of", async () => {
    expect((await s.post(`${P}/insights/viewed/`, { insight_ids: [1] }, { key: OTHER_KEY })).status).toBe(403);
  });
});
