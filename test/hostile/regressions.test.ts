import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASIC_FIXTURE, startChild } from "../support/child-server.ts";
import { assertSafeAnswer, rawRequest, startHostileServer, type HostileServer, type RawRequest } from "../support/hostile-http.ts";
import { OWNER_KEY, scenario } from "../support/server.ts";

/** Bugs the hostile suite found, each pinned by the request that showed it. */
const auth = { authorization: `Bearer ${OWNER_KEY}` };
const json = { ...auth, "content-type": "application/json" };

let h: HostileServer;
beforeAll(async () => {
  h = await startHostileServer(scenario("basic"));
});
afterAll(() => h.close());

async function safe(req: RawRequest) {
  const res = await rawRequest(h.base, req, 10_000);
  await assertSafeAnswer(req, res);
  return res;
}

describe("regressions found by the fuzzer", () => {
  // A 6,000-level value stored through PATCH person overflowed JSON.stringify in every later answer holding it.
  it("deep-json-poisons-state: a 6,000-level value is refused naming its field, and the person still answers", async () => {
    const deep = "[".repeat(6000) + "]".repeat(6000);
    const patch = await safe({ method: "PATCH", path: "/api/projects/1/persons/3/", headers: json, body: `{"properties":{"x":${deep}}}` });
    expect(patch.status).toBe(400);
    expect((patch.body as { attr: string }).attr).toBe("properties");
    const viaQuery = await safe({ method: "POST", path: `/api/projects/1/persons/3/update_property/?key=x&value=${"[".repeat(3000)}${"]".repeat(3000)}`, headers: json, body: "{}" });
    expect(viaQuery.status).toBe(400);
    expect((viaQuery.body as { attr: string }).attr).toBe("value");
    const after = await safe({ method: "GET", path: "/api/projects/1/persons/3/", headers: auth });
    expect(after.status).toBe(200);
    expect((after.body as { properties: Record<string, unknown> }).properties).not.toHaveProperty("x");
  });

  // Node answered a request whose headers exceed 16 KiB with a bodiless 431 before express saw it.
  it("bodiless-431: an oversized request line gets the Error shape", async () => {
    const res = await rawRequest(h.base, { method: "GET", path: `/api/projects/1/insights/?search=${"x".repeat(20_000)}`, headers: auth });
    expect(res.status).toBe(431);
    expect(Object.keys(res.body as object).sort()).toEqual(["attr", "code", "detail", "type"]);
  });

  // Path cleaning rebuilt a native RegExp from the RE2 pattern's source: a 500 on `(?i)`, and backtracking back.
  it("paths-cleaning-regex: local_path_cleaning_filters with an inline flag answers", async () => {
    const body = { date_from: "2024-03-01", path_replacements: true, local_path_cleaning_filters: [{ regex: "(?i)^SIGN", alias: "joined-" }], include_event_types: ["$pageview", "custom_event"] };
    const res = await safe({ method: "POST", path: "/api/projects/1/insights/path/", headers: json, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const items = (res.body as { result: { source: string; target: string }[] }).result.flatMap((e) => [e.source, e.target]);
    expect(items.some((item) => item.endsWith("_joined-up"))).toBe(true);
    expect(items.some((item) => item.endsWith("_signup"))).toBe(false);
  });
});

describe("regressions that blocked the event loop (against a child process, killed afterwards)", () => {
  // icontains values became backtracking regexes with one `.*` per `%`: "%%%%%%%%%%%%%%!" never finished.
  it("icontains-backtracking: an icontains filter of many % answers", { timeout: 60_000 }, async () => {
    const child = await startChild(["--in-memory", "--fixtures", BASIC_FIXTURE]);
    try {
      await rawRequest(child.url, { method: "PATCH", path: "/api/projects/1/persons/1/", headers: json, body: JSON.stringify({ properties: { email: "a".repeat(30) } }) });
      const filter = encodeURIComponent(JSON.stringify([{ key: "email", type: "person", operator: "icontains", value: `${"%".repeat(14)}!` }]));
      const res = await rawRequest(child.url, { method: "GET", path: `/api/projects/1/persons/?properties=${filter}`, headers: auth }, 5_000);
      expect(res.status).toBe(200);
    } finally {
      await child.kill();
    }
  });

  // Nothing bounded the number of buckets: hourly since 1025 (8.8 M buckets) took minutes and ended the process.
  it("unbounded-buckets: an hourly trend over a millennium is refused", { timeout: 60_000 }, async () => {
    const child = await startChild(["--in-memory", "--fixtures", BASIC_FIXTURE], ["--max-old-space-size=512"]);
    try {
      const body = JSON.stringify({ events: [{ id: "$pageview" }], interval: "hour", date_from: "1025-01-01" });
      const res = await rawRequest(child.url, { method: "POST", path: "/api/projects/1/insights/trend/", headers: json, body }, 5_000);
      expect(res.status).toBe(400);
      expect((res.body as { attr: string }).attr).toBe("date_from");
    } finally {
      await child.kill();
    }
  });
});
