import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureRequest } from "../support/capture-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * HogQL reads what was written just before, as the REST API does (fixtures/scenarios/basic.json: project 1 has
 * 11 events and 3 persons; person 1 is a / a-anon). Every response is validated against the document.
 */
let s: TestServer;
beforeEach(async () => {
  s = await startTestServer(scenario("basic"));
});
afterEach(() => s.close());

const E = "/api/environments/1";
const rows = async (query: string) => {
  const res = await s.post(`${E}/query/`, { query: { kind: "HogQLQuery", query } });
  expect(res.status).toBe(200);
  return res.body.results as unknown[][];
};
const capture = async (batch: object[]) => {
  const token = s.store.projects.get("1")!.api_token;
  const res = await captureRequest(s.base, "POST", "/batch/", { body: JSON.stringify({ api_key: token, batch }), headers: { "content-type": "application/json" } });
  expect(res.status).toBe(200);
};

describe("HogQL after writes", () => {
  it("sees captured events, an identify's merge, a deleted person and a reset at the next query", async () => {
    expect(await rows("select count() from events")).toEqual([[11]]);
    await capture([
      { event: "$pageview", distinct_id: "anon-9", timestamp: "2024-03-05T10:00:00Z", properties: { $browser: "Edge" } },
      { event: "$identify", distinct_id: "user-9", timestamp: "2024-03-05T10:01:00Z", properties: { $anon_distinct_id: "anon-9", $set: { email: "nine@x.io" } } },
    ]);
    expect(await rows("select count() from events")).toEqual([[13]]);
    // The anonymous pageview now belongs to the identified person, whose email the identify set.
    expect(await rows("select person.properties.email, count() from events where distinct_id in ('anon-9', 'user-9') group by 1")).toEqual([["nine@x.io", 2]]);
    expect(await rows("select uniq(person_id) from events where distinct_id in ('anon-9', 'user-9')")).toEqual([[1]]);

    const person = (await s.get("/api/projects/1/persons/?distinct_id=user-9")).body.results[0];
    expect((await s.del(`/api/projects/1/persons/${person.uuid}/`)).status).toBe(204);
    expect(await rows("select count() from persons where properties.email = 'nine@x.io'")).toEqual([[0]]);

    expect((await fetch(`${s.base}/_mock/reset/`, { method: "POST" })).status).toBe(200);
    expect(await rows("select count() from events")).toEqual([[11]]);
    expect(await rows("select count() from persons")).toEqual([[3]]);
  });
});
