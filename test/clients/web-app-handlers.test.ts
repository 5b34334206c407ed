/**
 * Walks what the real web app requests when its pages open (web-app-handlers.ts) against the server on the
 * groups scenario (group types, groups, persons, events, flags) with one saved insight. Every request of the
 * product-analytics part answers as the real service would: a success that conforms to the document. The rest
 * (other products of the real service) is a routing error with the one error body, never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { captureRequest } from "../support/capture-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";
import { WEB_APP_REQUESTS, type WebAppRequest } from "./web-app-handlers.ts";

let s: TestServer;
let ids: Record<string, string>;
beforeAll(async () => {
  s = await startTestServer(scenario("groups"));
  const first = async (path: string) => String((await s.get(path)).body.results[0].id);
  ids = {
    team_id: "1",
    insight_id: String((await s.post("/api/projects/1/insights/", { name: "Pageviews", filters: { events: [{ id: "$pageview" }] } })).body.id),
    feature_flag_id: await first("/api/projects/1/feature_flags/"),
    organization_id: "@current",
    query_kind: "EventsQuery",
  };
});
afterAll(() => s.close());

/** The entry's path with its parameters filled (an unknown kind of object gets an id no object has). */
const withIds = (path: string) => path.replace(/:(\w+)/g, (_, name: string) => ids[name] ?? "1");

/** What the web app sends with the requests that need more than their path. */
const QUERY: Record<string, string> = {
  "/api/projects/:team_id/groups/": "?group_type_index=0",
  "/api/environments/:team_id/groups/": "?group_type_index=0",
  "/api/projects/:team_id/groups/property_values/": "?group_type_index=0&key=industry",
  "/api/projects/:team_id/flag_value/values/": "?key=:feature_flag_id",
};

async function answer(entry: WebAppRequest) {
  const path = withIds(entry.path + (QUERY[entry.path] ?? ""));
  if (entry.method === "OPTIONS") {
    // A browser's preflight: no body, no contract operation; what matters is that it allows the request.
    const res = await fetch(s.base + path, { method: "OPTIONS", headers: { origin: "http://localhost:8010", "access-control-request-method": "POST" } });
    return { status: res.status, body: res.headers.get("access-control-allow-origin") };
  }
  if (entry.area === "capture") {
    const token = (await s.get("/api/projects/1/")).body.api_token as string;
    const body = JSON.stringify({ api_key: token, token, event: "$pageview", distinct_id: "web-app-walk", $set: { plan: "walk" } });
    return captureRequest(s.base, entry.method, path, { body, headers: { "content-type": "application/json" } });
  }
  const body =
    entry.method === "POST" && /\/query\/(:query_kind\/)?$/.test(entry.path)
      ? { query: { kind: "EventsQuery", select: ["event"], limit: 1 } }
      : entry.path.endsWith("/insights/viewed/")
        ? { insight_ids: [Number(ids.insight_id)] }
        : entry.method === "PATCH"
          ? { name: "Renamed by the web app" }
          : undefined;
  return s.request(entry.method, path, body === undefined ? {} : { body });
}

describe("the real web app's requests", () => {
  const served = WEB_APP_REQUESTS.filter((e) => e.area && e.method !== "OPTIONS");
  const others = WEB_APP_REQUESTS.filter((e) => !e.area);

  it.each(served.map((e) => [`${e.method} ${e.path} (${e.area})`, e] as const))("%s answers with a documented success", async (_, entry) => {
    const res = await answer(entry);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeGreaterThanOrEqual(200);
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBeLessThan(300);
  });

  it("a preflight from the web app's origin is allowed", async () => {
    const preflight = await answer({ method: "OPTIONS", path: "/decide/", area: "capture" });
    expect(preflight.body).toBe("http://localhost:8010");
  });

  // Answers are checked against the document as every answer is: a 404 or 405 must carry the one error body.
  it("every request of another product is a routing 404 (405 where its path is one of ours), never a server error", async () => {
    const answers = await Promise.all(others.map(async (entry) => [`${entry.method} ${entry.path}`, (await answer(entry)).status] as const));
    expect(answers.filter(([, status]) => status !== 404 && status !== 405)).toEqual([]);
  });
});
