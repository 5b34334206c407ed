/**
 * Annotations (beyond the spec: the real service's annotations API), on basic.json (frozen at 2024-03-05T12:00Z):
 * project 1 holds insight 1 "Pageviews" (short id PgVw0001) on dashboard 1 "Dashboard 1"; project 2 holds
 * insight 4 on dashboard 2. The owner (user 1, Ada) is a member of both, user 2 of project 2 only.
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
type A = { id: number; content: string };
const contents = (body: { results: A[] }) => body.results.map((a) => a.content);

async function create(body: Record<string, unknown>, project = P) {
  const res = await s.post(`${project}/annotations/`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe("creating and reading", () => {
  it("creates by the caller with the real defaults, lists and retrieves it", async () => {
    expect((await s.get(`${P}/annotations/`)).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    const created = await create({ content: "Launch", date_marker: "2024-03-02T09:00:00Z" });
    expect(created).toMatchObject({
      id: 1,
      content: "Launch",
      creation_type: "USR",
      scope: "dashboard_item",
      dashboard_item: null,
      deleted: false,
      created_by: { id: 1, first_name: "Ada" },
      created_at: "2024-03-05T12:00:00.000Z",
    });
    expect(created.date_marker).toBe("2024-03-02T09:00:00.000Z");
    // Stored and answered in UTC, whatever offset it was sent with.
    expect((await create({ date_marker: "2024-03-02T11:00:00+02:00" })).date_marker).toBe("2024-03-02T09:00:00.000Z");
    expect((await s.get(`${P}/annotations/1/`)).body).toEqual(created);
    expect((await s.get(`${P}/annotations/`)).body.results.map((a: A) => a.id)).toEqual([2, 1]);
  });

  it("names the insight and the dashboard it is pinned to", async () => {
    const onInsight = await create({ content: "Fix", scope: "dashboard_item", dashboard_item: 1 });
    expect(onInsight).toMatchObject({ dashboard_item: 1, insight_short_id: "PgVw0001", insight_name: "Pageviews", dashboard_name: null });
    const onDashboard = await create({ content: "Campaign", scope: "dashboard", dashboard_id: 1 });
    expect(onDashboard).toMatchObject({ dashboard_id: 1, dashboard_name: "Dashboard 1", insight_short_id: null });
  });

  it("refuses an insight or dashboard of another project, naming the field", async () => {
    for (const [body, attr] of [
      [{ dashboard_item: 4 }, "dashboard_item"],
      [{ dashboard_item: 999 }, "dashboard_item"],
      [{ dashboard_id: 2 }, "dashboard_id"],
    ] as const) {
      const res = await s.post(`${P}/annotations/`, { content: "x", ...body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: "validation_error", code: "does_not_exist", attr });
    }
    expect((await s.get(`${P}/annotations/`)).body.count).toBe(0);
  });

  it("refuses bad fields with a 400 naming them", async () => {
    for (const [body, attr] of [
      [{ content: "x".repeat(401) }, "content"],
      [{ scope: "team" }, "scope"],
      [{ date_marker: "yesterday" }, "date_marker"],
      [{ date_marker: "2024-03-02T23:59:60Z" }, "date_marker"],
      [{ creation_type: "BOT" }, "creation_type"],
      [{ dashboard_item: "one" }, "dashboard_item"],
    ] as const) {
      const res = await s.post(`${P}/annotations/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.attr).toBe(attr);
    }
    for (const query of ["after=soon", "scope=team", "limit=0"]) {
      const res = await s.get(`${P}/annotations/?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.attr).toBe(query.split("=")[0]);
    }
    // A parameter the list does not take is ignored, as the real service ignores it (the request log notes it).
    expect((await s.get(`${P}/annotations/?order=date_marker`)).status).toBe(200);
  });

  it("is 404 for an unknown id and 403 in a project the caller is not a member of", async () => {
    expect((await s.get(`${P}/annotations/9/`)).status).toBe(404);
    expect((await s.get(`${P}/annotations/`, { key: OTHER_KEY })).status).toBe(403);
  });
});

describe("the list", () => {
  beforeEach(async () => {
    await create({ content: "Onboarding launched", date_marker: "2024-02-20T10:00:00Z", scope: "project" });
    await create({ content: "Pricing change", date_marker: "2024-03-02T09:00:00Z", scope: "project" });
    await create({ content: "Safari fix", date_marker: "2024-03-03T15:00:00Z", scope: "dashboard_item", dashboard_item: 1 });
    await create({ content: "Undated note", scope: "project" });
  });

  it("puts those without a date first, then the latest date_marker", async () => {
    expect(contents((await s.get(`${P}/annotations/`)).body)).toEqual(["Undated note", "Safari fix", "Pricing change", "Onboarding launched"]);
  });

  it("selects a chart's range by date_marker (bounds excluded), as the events list reads bounds", async () => {
    // The range of a trend over 2024-03-01 … 2024-03-03, as the web app would ask it.
    const inRange = await s.get(`${P}/annotations/?after=2024-03-01T00:00:00Z&before=2024-03-04`);
    expect(contents(inRange.body)).toEqual(["Safari fix", "Pricing change"]);
    expect(contents((await s.get(`${P}/annotations/?before=2024-03-02T09:00:00Z`)).body)).toEqual(["Onboarding launched"]);
    expect(contents((await s.get(`${P}/annotations/?after=2024-03-02`)).body)).toEqual(["Safari fix", "Pricing change"]);
    // Relative to the frozen now (2024-03-05T12:00Z): the last 3 days start at 03-02T12:00 (project 1 is UTC).
    expect(contents((await s.get(`${P}/annotations/?after=-3d`)).body)).toEqual(["Safari fix"]);
  });

  it("filters by scope and by a case-insensitive search of the content", async () => {
    expect(contents((await s.get(`${P}/annotations/?scope=dashboard_item`)).body)).toEqual(["Safari fix"]);
    expect(contents((await s.get(`${P}/annotations/?search=PRIC`)).body)).toEqual(["Pricing change"]);
    expect(contents((await s.get(`${P}/annotations/?search=nothing`)).body)).toEqual([]);
  });

  it("pages with limit and offset, linking the next page", async () => {
    const first = await s.get(`${P}/annotations/?limit=3`);
    expect(first.body.count).toBe(4);
    expect(first.body.results).toHaveLength(3);
    const next = new URL(first.body.next);
    expect(next.searchParams.get("offset")).toBe("3");
    const second = await s.get(`${next.pathname}${next.search}`);
    expect(contents(second.body)).toEqual(["Onboarding launched"]);
    expect(second.body.next).toBeNull();
  });

  it("shows organization-wide annotations in every project, the others only in their own", async () => {
    await create({ content: "Offsite", date_marker: "2024-03-01T00:00:00Z", scope: "organization" });
    const inOther = await s.get(`/api/projects/2/annotations/`);
    expect(contents(inOther.body)).toEqual(["Offsite"]);
    expect(contents((await s.get(`${P}/annotations/?scope=organization`)).body)).toEqual(["Offsite"]);
    expect((await s.get(`/api/projects/2/annotations/1/`)).status).toBe(404);
  });
});

describe("updating and soft delete", () => {
  it("changes the written fields and updated_at, keeping the rest", async () => {
    await create({ content: "Launch", date_marker: "2024-03-02T09:00:00Z", scope: "project" });
    s.clock.set(Date.parse("2024-03-05T13:00:00Z"));
    const res = await s.patch(`${P}/annotations/1/`, { content: "Launch (EU)", id: 77, created_at: "2020-01-01T00:00:00Z" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, content: "Launch (EU)", scope: "project", created_at: "2024-03-05T12:00:00.000Z", updated_at: "2024-03-05T13:00:00.000Z" });
    expect((await s.get(`${P}/annotations/1/`)).body.content).toBe("Launch (EU)");
  });

  it("PATCH deleted: true hides it from list and retrieve; deleted: false restores it; DELETE is 405", async () => {
    await create({ content: "Launch", scope: "project" });
    const deleted = await s.patch(`${P}/annotations/1/`, { deleted: true });
    expect(deleted.status).toBe(200);
    expect(deleted.body.deleted).toBe(true);
    expect((await s.get(`${P}/annotations/1/`)).status).toBe(404);
    expect((await s.get(`${P}/annotations/`)).body.count).toBe(0);
    const restored = await s.patch(`${P}/annotations/1/`, { deleted: false });
    expect(restored.body.deleted).toBe(false);
    expect((await s.get(`${P}/annotations/`)).body.count).toBe(1);
    const hard = await s.del(`${P}/annotations/1/`);
    expect(hard.status).toBe(405);
    expect(hard.body).toMatchObject({ type: "invalid_request", code: "method_not_allowed" });
    expect((await s.get(`${P}/annotations/1/`)).status).toBe(200);
  });
});
