import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { derivedProjectToken } from "../../src/util/ids.ts";
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

async function safe(req: RawRequest, on: HostileServer = h) {
  const res = await rawRequest(on.base, req, 10_000);
  await assertSafeAnswer(req, res);
  return res;
}

const attrOf = (res: { body: unknown }) => (res.body as { attr: string | null }).attr;

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

describe("regressions found by the fuzzer over the control API", () => {
  // A server of its own: these tests move its clock and replace its state.
  let c: HostileServer;
  beforeAll(async () => {
    c = await startHostileServer(scenario("basic"));
  });
  afterAll(() => c.close());
  const control = (method: string, path: string, body?: string) => safe({ method, path, headers: { "content-type": "application/json" }, body }, c);
  const clockNow = async () => ((await control("GET", "/_mock/clock/")).body as { now: string }).now;

  // 1e300 seconds (or 1e400, which JSON.parse reads as Infinity) made the clock unprintable: a 500 on that call and on every later one.
  it("clock-advance-1e300: a step out of range is a 400 on seconds, and the clock stays", async () => {
    for (const seconds of ["1e300", "1e400", "315576000001"]) {
      const res = await control("POST", "/_mock/clock/advance/", `{"seconds": ${seconds}}`);
      expect(res.status, seconds).toBe(400);
      expect(attrOf(res)).toBe("seconds");
    }
    expect(await clockNow()).toBe("2024-03-05T12:00:00.000Z");
    expect((await control("PUT", "/_mock/clock/", '{"now": "9999-12-31T00:00:00Z"}')).status).toBe(200);
    const pastYear9999 = await control("POST", "/_mock/clock/advance/", '{"seconds": 172800}');
    expect(pastYear9999.status).toBe(400);
    expect(attrOf(pastYear9999)).toBe("seconds");
    expect(await clockNow()).toBe("9999-12-31T00:00:00.000Z");
    expect((await control("POST", "/_mock/clock/advance/", '{"seconds": 604800}')).status).toBe(400);
    expect((await control("POST", "/_mock/reset/")).status).toBe(200);
    expect((await control("POST", "/_mock/clock/advance/", '{"seconds": 604800}')).body).toEqual({ now: "2024-03-12T12:00:00.000Z", frozen: true });
  });

  // A valid date-time whose offset moves it out of years 0000–9999 froze the clock at "-000001-12-31T00:01:00.000Z".
  it("clock-now-offset: a now outside years 0000-9999 is a 400 on now, from the clock and from a fixture document", async () => {
    for (const now of ["0000-01-01T00:00:00+23:59", "9999-12-31T23:59:59-23:59"]) {
      const res = await control("PUT", "/_mock/clock/", JSON.stringify({ now }));
      expect(res.status, now).toBe(400);
      expect(attrOf(res)).toBe("now");
      const doc = await control("PUT", "/_mock/state/", JSON.stringify({ ...scenario("basic"), now }));
      expect(doc.status, now).toBe(400);
      expect(attrOf(doc)).toBe("now");
    }
    expect((await control("PUT", "/_mock/clock/", '{"now": "0000-01-01T00:00:00Z"}')).body).toEqual({ now: "0000-01-01T00:00:00.000Z", frozen: true });
    expect((await control("POST", "/_mock/reset/")).status).toBe(200);
  });

  // Globs became backtracking RegExps: 16,000 `**/` overflowed the stack compiling one (a 500); 50,000 `*` hung matching.
  it("glob-too-long: a glob past 2,048 characters is a 400 on path; a long run of stars is one `**`", async () => {
    await safe({ method: "GET", path: "/api/projects/1/insights/?limit=1", headers: auth }, c);
    for (const glob of [`${"*".repeat(50_000)}x`, `${"**/".repeat(16_000)}x`]) {
      const res = await control("POST", "/_mock/requests/find/", JSON.stringify({ path: glob }));
      expect(res.status).toBe(400);
      expect(attrOf(res)).toBe("path");
    }
    const stars = await control("POST", "/_mock/requests/count/", JSON.stringify({ path: `/api/${"*".repeat(2_000)}/`, method: "GET" }));
    expect((stars.body as { count: number }).count).toBeGreaterThan(0);
  });

  // Control bodies were read (and judged) before routing: a wrong method with a text body was a 415, not a 405.
  it("control-wrong-method: a wrong method is a 405 whatever its body, an undeclared query field a documented 400", async () => {
    const patch = await safe({ method: "PATCH", path: "/_mock/state/", headers: { "content-type": "text/plain" }, body: "x" }, c);
    expect(patch.status).toBe(405);
    const deep = await safe({ method: "PATCH", path: "/_mock/clock/advance/", headers: { "content-type": "application/json" }, body: "[".repeat(6_000) + "]".repeat(6_000) }, c);
    expect(deep.status).toBe(405);
    const query = await safe({ method: "POST", path: "/_mock/reset/?limit=1", headers: {} }, c);
    expect(query.status).toBe(400);
    expect(attrOf(query)).toBe("limit");
  });
});

describe("regressions found by the fuzzer over capture", () => {
  const token = derivedProjectToken("1");
  const capture = (path: string, body: unknown, headers: Record<string, string> = { "content-type": "application/json" }) =>
    safe({ method: "POST", path, headers, body: typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body) });
  const eventNamed = async (name: string) => {
    const res = await safe({ method: "GET", path: `/api/projects/1/events/?event=${encodeURIComponent(name)}`, headers: auth });
    return (res.body as { results: { timestamp: string; distinct_id: string }[] }).results;
  };

  // now − offset (or now + timestamp − sent_at) past year 9999 reached toISOString(): a 500, after the person was written.
  it("capture-time-extremes: an offset, timestamp or sent_at far out is the server's now", async () => {
    const events = [
      { event: "far-offset", distinct_id: "far-1", offset: 1e300 },
      { event: "far-offset", distinct_id: "far-2", offset: -8.64e15 },
      { event: "far-timestamp", distinct_id: "far-3", timestamp: 99_999_999_999_999_999_999 },
    ];
    expect((await capture("/batch/", { api_key: token, sent_at: "2024-03-05T12:00:00Z", batch: events })).status).toBe(200);
    expect((await capture("/batch/", { api_key: token, sent_at: "99999999999999999999", batch: [{ event: "far-sent-at", distinct_id: "far-4", timestamp: "2024-03-05T11:00:00Z" }] })).status).toBe(200);
    const data = encodeURIComponent(JSON.stringify({ token, event: "far-query", distinct_id: "far-5" }));
    expect((await safe({ method: "GET", path: `/e/?_=99999999999999999999&data=${data}`, headers: {} })).status).toBe(200);
    for (const name of ["far-offset", "far-timestamp", "far-sent-at", "far-query"]) {
      const found = await eventNamed(name);
      expect(found.length, name).toBeGreaterThan(0);
      for (const e of found) expect(e.timestamp, name).toBe("2024-03-05T12:00:00.000Z");
    }
  });

  // uuid's v5 threw a URIError on a lone surrogate: a 400 "path is not valid percent-encoding", after the person counter moved.
  it("capture-lone-surrogate: a distinct id holding a lone surrogate is stored", async () => {
    const res = await capture("/e/", `{"token":"${token}","event":"lone-surrogate","distinct_id":"x\\ud800y"}`);
    expect(res.status).toBe(200);
    expect(await eventNamed("lone-surrogate")).toEqual([expect.objectContaining({ distinct_id: "x\ud800y" })]);
  });

  // A broken gzip, deflate or br body went past the decoding checks as zlib's own error: a 500.
  it("broken-content-encoding: a body that does not inflate is a 400, on capture, flags and the product API", async () => {
    for (const encoding of ["br", "gzip", "deflate"]) {
      const headers = { "content-type": "application/json", "content-encoding": encoding };
      const e = await capture("/e/", "not compressed", headers);
      expect(e.status, encoding).toBe(400);
      expect(await capture("/flags/?v=2", "not compressed", headers)).toMatchObject({ status: 400 });
      const insight = await safe({ method: "POST", path: "/api/projects/1/insights/", headers: { ...headers, ...auth }, body: "not compressed" });
      expect(insight.status, encoding).toBe(400);
    }
    const gzipped = await capture("/e/", gzipSync(JSON.stringify({ token, event: "gzipped", distinct_id: "g" })), { "content-type": "application/json", "content-encoding": "gzip" });
    expect(gzipped.status).toBe(200);
  });

  // Express matched routes in any case: `/E/` was captured, though no document has it.
  it("capture-path-case: /E/ is no capture endpoint", async () => {
    expect((await capture("/E/", { token, event: "upper", distinct_id: "u" })).status).toBe(404);
    expect(await eventNamed("upper")).toEqual([]);
  });

  // The script's content type was set before the token was checked: the 404 went out as JavaScript.
  it("config-js-404: an unknown token's config.js answers the JSON error", async () => {
    const res = await safe({ method: "GET", path: "/array/phc_unknown/config.js", headers: {} });
    expect(res.status).toBe(404);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
  });
});

describe("regressions that blocked the event loop, over the control API (against a child process, killed afterwards)", () => {
  // Each `*` became a backtracking `[^/]*`: a glob of 25 `*a` against a logged path of 40 `a` never finished.
  it("glob-backtracking: a glob that almost matches a long logged path answers", { timeout: 60_000 }, async () => {
    const child = await startChild(["--in-memory", "--fixtures", BASIC_FIXTURE]);
    try {
      await rawRequest(child.url, { method: "GET", path: `/${"a".repeat(40)}`, headers: auth });
      const body = JSON.stringify({ path: `/${"*a".repeat(25)}!` });
      const res = await rawRequest(child.url, { method: "POST", path: "/_mock/requests/count/", headers: { "content-type": "application/json" }, body }, 5_000);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ count: 0 });
      const near = JSON.stringify({ path: `/${"*a".repeat(25)}` });
      expect((await rawRequest(child.url, { method: "POST", path: "/_mock/requests/count/", headers: { "content-type": "application/json" }, body: near }, 5_000)).body).toEqual({ count: 1 });
    } finally {
      await child.kill();
    }
  });
});
