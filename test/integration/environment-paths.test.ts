/**
 * The real service's environment paths: every project-scoped operation answers under
 * `/api/environments/{id}/` as under `/api/projects/{id}/` (an environment is its project here), and
 * `@current` names the caller's first project, environment and the organization. On basic.json.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callControl } from "../support/control-contract.ts";
import { OTHER_KEY, qs, scenario, startTestServer, type TestServer } from "../support/server.ts";

let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

describe("environment paths", () => {
  it("read the same resources as the project paths", async () => {
    for (const rest of ["", "insights/", "persons/?limit=2", "events/?limit=3", "event_definitions/", `insights/trend/?${qs({ events: [{ id: "$pageview" }], date_from: "2024-03-01", date_to: "2024-03-03" })}`]) {
      const project = await s.get(`/api/projects/1/${rest}`);
      const environment = await s.get(`/api/environments/1/${rest}`);
      expect(project.status, rest).toBe(200);
      expect(environment.status, rest).toBe(200);
      // One computation serves both doors: the environment's analysis is the project's, cached.
      if (rest.startsWith("insights/trend/")) expect([project.body.is_cached, environment.body.is_cached]).toEqual([false, true]);
      const { is_cached: _, ...comparable } = project.body;
      const { is_cached: __, ...environmentComparable } = environment.body;
      // Pagination links keep the prefix they were asked under.
      expect(JSON.stringify(environmentComparable), rest).toBe(JSON.stringify(comparable).replaceAll("/api/projects/1/", "/api/environments/1/"));
    }
  });

  it("write the same state: an insight created under an environment is the project's", async () => {
    const created = await s.post("/api/environments/1/insights/", { name: "Env insight", filters: { insight: "TRENDS", events: [{ id: "$pageview" }] } });
    expect(created.status).toBe(201);
    const listed = (await s.get("/api/projects/1/insights/?limit=100")).body.results.map((i: { id: number }) => i.id);
    expect(listed).toContain(created.body.id);
    expect((await s.patch(`/api/environments/1/insights/${created.body.id}/`, { deleted: true })).status).toBe(200);
    expect((await s.get(`/api/projects/1/insights/${created.body.id}/`)).status).toBe(404);
  });

  it("check membership and existence as the project paths do", async () => {
    expect((await s.get("/api/environments/3/insights/")).status).toBe(403);
    expect((await s.get("/api/environments/99/insights/")).status).toBe(404);
    expect((await s.get("/api/environments/1/insights/", { key: null })).status).toBe(401);
    const unknown = await s.get("/api/environments/1/no_such_thing/");
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe("invalid_request");
  });

  it("validate the request as the project path's operation does, naming the field", async () => {
    const bad = await s.get(`/api/environments/1/insights/trend/?${qs({ events: [{ id: "$pageview" }] })}&interval=fortnight`);
    expect(bad.status).toBe(400);
    expect(bad.body.attr).toBe("interval");
  });

  it("keep the operations the document declares for environments (the query API)", async () => {
    await s.post("/api/environments/1/query/", { query: { kind: "HogQLQuery", query: "select 1" } });
    const log = await callControl(s.base, "GET", "/requests/?limit=1");
    expect(log.body.results[0]).toMatchObject({ path: "/api/environments/1/query/", operation_id: "environments_query_create" });
    await s.get("/api/environments/1/insights/");
    expect((await callControl(s.base, "GET", "/requests/?limit=1")).body.results[0]).toMatchObject({ path: "/api/environments/1/insights/", operation_id: "insights_list" });
  });
});

describe("@current", () => {
  it("is the caller's first project, as a project and as an environment", async () => {
    const project = (await s.get("/api/projects/@current/")).body;
    expect(project).toMatchObject({ id: 1 });
    expect((await s.get("/api/environments/@current/")).body).toEqual(project);
    expect((await s.get("/api/environments/%40current/")).body).toEqual(project);
    // User 2's first project is 2.
    expect((await s.get("/api/environments/@current/", { key: OTHER_KEY })).body).toMatchObject({ id: 2 });
    expect((await s.get("/api/environments/@current/insights/", { key: OTHER_KEY })).status).toBe(200);
  });

  it("is the organization of the key's user", async () => {
    const org = (await s.get("/api/organizations/")).body.results[0];
    expect((await s.get("/api/organizations/@current/")).body).toEqual(org);
    expect((await s.get("/api/organizations/%40current/")).body).toEqual(org);
  });
});
