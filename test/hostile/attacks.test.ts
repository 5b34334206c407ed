import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toCsv } from "../../src/pipeline/csv.ts";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { parseCsv } from "../support/csv-parse.ts";
import { assertSafeAnswer, rawRequest, startHostileServer, type HostileServer, type RawRequest } from "../support/hostile-http.ts";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const tmp = () => mkdtempSync(path.join(tmpdir(), "analytics-mock-hostile-"));
const auth = { authorization: `Bearer ${OWNER_KEY}` };
const json = { ...auth, "content-type": "application/json" };
const personFilter = (operator: string, value: unknown, key = "email") => encodeURIComponent(JSON.stringify([{ key, type: "person", operator, value }]));

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
});
afterAll(() => s.close());

describe("regex and not_regex filters run in linear time", () => {
  const CATASTROPHIC = ["(a+)+$", "(a|a)+$", "(a|aa)+$", "(.*a){20}$", "^(a?){30}a{30}$", "(\\w+\\s?)+$"];

  beforeAll(async () => {
    // 50,000 characters that almost match: a backtracking engine needs longer than the age of the universe.
    const res = await s.patch("/api/projects/1/persons/1/", { properties: { email: `${"a".repeat(50_000)}!` } });
    expect(res.status).toBe(200);
  });

  for (const pattern of CATASTROPHIC) {
    it(`persons list, events list and trend answer with ${pattern}`, async () => {
      for (const operator of ["regex", "not_regex"]) {
        const persons = await s.get(`/api/projects/1/persons/?properties=${personFilter(operator, pattern)}`);
        expect(persons.status).toBe(200);
        const expected = operator === "regex" ? 0 : persons.body.count;
        expect(persons.body.results.filter((p: { id: number }) => p.id === 1)).toHaveLength(expected === 0 ? 0 : 1);
        const trend = await s.post("/api/projects/1/insights/trend/", {
          events: [{ id: "$pageview" }],
          date_from: "2024-03-01",
          date_to: "2024-03-05",
          properties: [{ key: "email", type: "person", operator, value: pattern }],
        });
        expect(trend.status).toBe(200);
        const events = await s.get(`/api/projects/1/events/?properties=${encodeURIComponent(JSON.stringify([{ key: "$browser", operator, value: pattern }]))}`);
        expect(events.status).toBe(200);
      }
    });
  }

  it("answers 400 naming the filter for patterns the engine refuses (backreferences, lookaround) or cannot parse", async () => {
    for (const pattern of ["(a)\\1", "(?=a)a", "(?<!a)b", "(?!x)", "a{1001}", "(", "[z-a]", "x**"]) {
      const persons = await s.get(`/api/projects/1/persons/?properties=${personFilter("regex", pattern)}`);
      expect(persons.status, pattern).toBe(400);
      expect(persons.body.attr).toBe("properties");
      const trend = await s.post("/api/projects/1/insights/trend/", { events: [{ id: "$pageview" }], properties: [{ key: "email", type: "person", operator: "not_regex", value: pattern }] });
      expect(trend.status, pattern).toBe(400);
      expect(trend.body.attr).toMatch(/properties/);
    }
  });

  it("keeps RE2 syntax: inline flags and classes", async () => {
    await s.patch("/api/projects/1/persons/2/", { properties: { email: "Bob@Corp.io" } });
    const res = await s.get(`/api/projects/1/persons/?properties=${personFilter("regex", "(?i)^bob@corp\\.io$")}`);
    expect(res.body.results.map((p: { id: number }) => p.id)).toEqual([2]);
    const digits = await s.get(`/api/projects/1/persons/?properties=${personFilter("regex", "^\\p{L}+@")}`);
    expect(digits.status).toBe(200);
  });
});

describe("CSV output cannot run as a spreadsheet formula", () => {
  const DANGEROUS = ["=1+1", "+1+1", "-1+1", "@SUM(A1)", "\t=1+1", "\r=1+1", '=HYPERLINK("http://evil","x")', "=cmd|' /C calc'!A0"];
  const FORMULA_START = /^[=+\-@\t\r]/;
  /** A plain number is read as a number by a spreadsheet, never as a formula: written as is. */
  const PLAIN_NUMBER = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
  const runnable = (cell: string) => FORMULA_START.test(cell) && !PLAIN_NUMBER.test(cell);

  it("prefixes every dangerous cell of the persons, insights and events lists, header included", async () => {
    const properties: Record<string, string> = {};
    DANGEROUS.forEach((v, i) => (properties[`p${i}`] = v));
    properties["=key"] = "header injection";
    expect((await s.patch("/api/projects/1/persons/3/", { properties })).status).toBe(200);
    for (const name of DANGEROUS) expect((await s.post("/api/projects/1/insights/", { name, description: name, tags: [name] })).status).toBe(201);
    for (const list of ["persons", "insights", "events"]) {
      const res = await s.get(`/api/projects/1/${list}/?format=csv&limit=100`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
      const cells = parseCsv(res.text).flat();
      expect(cells.length).toBeGreaterThan(10);
      for (const cell of cells) expect(runnable(cell), `${list}: ${JSON.stringify(cell)}`).toBe(false);
    }
    const persons = parseCsv((await s.get("/api/projects/1/persons/?format=csv")).text);
    const header = persons[0]!;
    const row = persons.find((r) => r.includes("header injection"))!;
    for (const [i, v] of DANGEROUS.entries()) expect(row[header.indexOf(`properties.p${i}`)]).toBe(`'${v}`);
  });

  it("toCsv neutralises each dangerous first character, also in nested values, and leaves the rest as it was", () => {
    const rows = DANGEROUS.map((v) => ({ v, nested: { w: v }, n: -5, safe: "a=b" }));
    const parsed = parseCsv(toCsv(rows));
    for (const cell of parsed.flat()) expect(runnable(cell), JSON.stringify(cell)).toBe(false);
    expect(parsed[1]).toContain("a=b");
    expect(parsed.slice(1).map((r) => r[parsed[0]!.indexOf("n")])).toEqual(DANGEROUS.map(() => "-5"));
    expect(parsed.slice(1).map((r) => r[parsed[0]!.indexOf("v")])).toEqual(DANGEROUS.map((v) => `'${v}`));
  });
});

describe("__proto__, constructor and prototype are plain data", () => {
  const POISON = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"},"plain":1}';
  const notPolluted = () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
  };
  const ownKeys = (o: unknown) => Object.keys(o as object).sort();

  afterEach(notPolluted);

  it("in person properties: PATCH, update_property and delete_property keep them as own keys", async () => {
    const patched = await s.request("PATCH", "/api/projects/1/persons/2/", { raw: `{"properties":${POISON}}`, headers: { "content-type": "application/json" } });
    expect(patched.status).toBe(200);
    const got = await s.get("/api/projects/1/persons/2/");
    expect(ownKeys(got.body.properties)).toEqual(expect.arrayContaining(["__proto__", "constructor", "prototype", "plain"]));
    expect(Object.getOwnPropertyDescriptor(got.body.properties, "__proto__")!.value).toEqual({ polluted: "yes" });
    expect(got.body.properties.constructor).toEqual({ prototype: { polluted: "yes" } });
    const set = await s.post("/api/projects/1/persons/2/update_property/", { key: "__proto__", value: { polluted: "again" } });
    expect(set.status).toBe(200);
    expect(Object.getOwnPropertyDescriptor(set.body.properties, "__proto__")!.value).toEqual({ polluted: "again" });
    const unset = await s.post("/api/projects/1/persons/2/delete_property/", { $unset: "constructor" });
    expect(unset.status).toBe(200);
    expect(ownKeys(unset.body.properties)).not.toContain("constructor");
    expect(ownKeys(unset.body.properties)).toContain("__proto__");
  });

  it("in insight filters and property filters", async () => {
    const raw = `{"name":"proto","filters":{"insight":"TRENDS","events":[{"id":"$pageview"}],"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}}`;
    const created = await s.request("POST", "/api/projects/1/insights/", { raw, headers: { "content-type": "application/json" } });
    expect(created.status).toBe(201);
    const got = await s.get(`/api/projects/1/insights/${created.body.id}/`);
    expect(Object.getOwnPropertyDescriptor(got.body.filters, "__proto__")!.value).toEqual({ polluted: "yes" });
    expect(got.body.filters.constructor).toEqual({ prototype: { polluted: "yes" } });
    for (const key of ["__proto__", "constructor", "prototype", "hasOwnProperty", "toString"]) {
      const persons = await s.get(`/api/projects/1/persons/?properties=${personFilter("is_set", null, key)}`);
      expect(persons.status).toBe(200);
      const trend = await s.post("/api/projects/1/insights/trend/", { events: [{ id: "$pageview" }], breakdown: key, breakdown_type: "person" });
      expect(trend.status).toBe(200);
    }
  });

  it("in fixture files (command line and control API) and on disk after a restart", async () => {
    const dir = tmp();
    const doc = readFileSync(path.join(root, "fixtures/scenarios/basic.json"), "utf8").replace('"properties": {"email": "a@corp.io", "plan": "pro"}', `"properties": ${POISON}`);
    expect(doc).toContain("__proto__");
    const file = path.join(dir, "poison.json");
    writeFileSync(file, doc);
    const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));
    let running: StartedServer = await start(["--fixtures", file, "--data", path.join(dir, "db.json")]);
    try {
      const check = async (base: string) => {
        const res = await rawRequest(base, { method: "GET", path: "/api/projects/1/persons/1/", headers: auth });
        await assertSafeAnswer({ method: "GET", path: "/api/projects/1/persons/1/" }, res);
        const props = (res.body as { properties: object }).properties;
        expect(Object.getOwnPropertyDescriptor(props, "__proto__")!.value).toEqual({ polluted: "yes" });
        expect(Object.keys(props).sort()).toEqual(["__proto__", "constructor", "plain", "prototype"]);
        notPolluted();
      };
      await check(running.url);
      await running.close();
      running = await start(["--data", path.join(dir, "db.json")]);
      expect(running.source).toBe("data-file");
      await check(running.url);
      const put = await rawRequest(running.url, { method: "PUT", path: "/_mock/state/", headers: { "content-type": "application/json" }, body: doc });
      expect(put.status).toBe(200);
      await check(running.url);
      const topLevel = await rawRequest(running.url, { method: "PUT", path: "/_mock/state/", headers: { "content-type": "application/json" }, body: `{"version":1,"__proto__":{"polluted":"yes"}}` });
      expect(topLevel.status).toBe(400);
      await check(running.url);
    } finally {
      await running.close();
    }
  });
});

describe("formulas are parsed, never evaluated", () => {
  const ATTACKS = [
    "constructor.constructor('return process')()",
    "A.constructor",
    "process.exit(1)",
    "globalThis",
    "this",
    "A; process.exit(1)",
    "(() => 1)()",
    "new Function('return 1')",
    "A[0]",
    "`${A}`",
    "require('fs')",
    "A = 1",
    "__proto__",
    "A ? B : 1",
  ];

  it("answers 400 naming formula, in the body and the query string", async () => {
    for (const formula of ATTACKS) {
      const post = await s.post("/api/projects/1/insights/trend/", { events: [{ id: "$pageview" }, { id: "signup" }], formula });
      expect(post.status, formula).toBe(400);
      expect(post.body.attr, formula).toBe("formula");
      const events = encodeURIComponent(JSON.stringify([{ id: "$pageview" }, { id: "signup" }]));
      const get = await s.get(`/api/projects/1/insights/trend/?events=${events}&formula=${encodeURIComponent(formula)}`);
      expect(get.status, formula).toBe(400);
      expect(get.body.attr, formula).toBe("formula");
    }
    const ok = await s.post("/api/projects/1/insights/trend/", { events: [{ id: "$pageview" }, { id: "signup" }], formula: "A / B * 100", date_from: "2024-03-01", date_to: "2024-03-03" });
    expect(ok.status).toBe(200);
  });
});

describe("no file outside what was named is reached", () => {
  it("--data and --fixtures with .. segments reach only the named files: the store files beside --data", async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, "fx.json"), readFileSync(path.join(root, "fixtures/scenarios/basic.json")));
    const argv = ["--data", path.join(dir, "a", "..", "b", "..", "c", "db.json"), "--fixtures", path.join(dir, "x", "..", "fx.json")];
    const running = await startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));
    try {
      const created = await rawRequest(running.url, { method: "POST", path: "/api/projects/1/insights/", headers: json, body: '{"name":"../../../../etc/passwd"}' });
      expect(created.status).toBe(201);
    } finally {
      await running.close();
    }
    expect(readdirSync(dir).sort()).toEqual(["c", "fx.json"]);
    expect(readdirSync(path.join(dir, "c")).sort()).toEqual(["db.activity.ndjson", "db.events.columns", "db.events.ndjson", "db.json", "db.persons.json", "db.recordings.ndjson"]);
  });

  it("the control API takes documents, not paths: $ref and path-like strings stay data", async () => {
    const server = await startHostileServer(scenario("basic"));
    try {
      const doc = scenario("basic") as unknown as { persons: { properties: Record<string, unknown> }[] };
      doc.persons[0]!.properties = { $ref: "/etc/passwd", file: "file:///etc/passwd", up: "../../../../../../etc/passwd" };
      const put = await rawRequest(server.base, { method: "PUT", path: "/_mock/state/", headers: { "content-type": "application/json" }, body: JSON.stringify({ ...doc, $ref: "../../package.json" }) });
      expect(put.status).toBe(400);
      const ok = await rawRequest(server.base, { method: "PUT", path: "/_mock/state/", headers: { "content-type": "application/json" }, body: JSON.stringify(doc) });
      expect(ok.status).toBe(200);
      const person = await rawRequest(server.base, { method: "GET", path: "/api/projects/1/persons/1/", headers: auth });
      expect((person.body as { properties: unknown }).properties).toEqual({ $ref: "/etc/passwd", file: "file:///etc/passwd", up: "../../../../../../etc/passwd" });
      expect(person.text).not.toContain("root:");
    } finally {
      await server.close();
    }
  });

  it("URLs with traversal serve no file of the project or the system", async () => {
    const server = await startHostileServer(scenario("basic"));
    const secrets = [readFileSync(path.join(root, "package.json"), "utf8").slice(0, 60), "root:x:0:0", "[core]", "BEGIN", '"lockfileVersion"'];
    try {
      const targets = ["package.json", "package-lock.json", ".git/config", "etc/passwd", "src/main.ts", "data/db.json"];
      const prefixes = ["/", "/docs/", "/docs/assets/", "/_mock/", "/_mock/openapi.yaml/", "/api/projects/1/", "/openapi.json/", "/api/projects/1/insights/"];
      const ups = ["../", "..%2f", "%2e%2e/", "%2e%2e%2f", "..%5c", "....//", "%252e%252e%252f", "..;/", "%c0%ae%c0%ae/"];
      for (const prefix of prefixes) for (const up of ups) for (const target of targets) {
        const p = `${prefix}${up.repeat(8)}${target}`;
        const res = await rawRequest(server.base, { method: "GET", path: p, headers: auth });
        expect(res.status, p).toBeLessThan(500);
        for (const secret of secrets) expect(res.text.includes(secret), `${p} leaks ${secret}`).toBe(false);
      }
    } finally {
      await server.close();
    }
  });
});

describe("body size and misbehaving clients", () => {
  let h: HostileServer;
  beforeAll(async () => {
    h = await startHostileServer(scenario("basic"), { bodyLimit: 4096 });
  });
  afterAll(() => h.close());

  it("answers 413 with the Error shape for a body over the limit, sized or chunked, and keeps serving", async () => {
    const big = JSON.stringify({ name: "x".repeat(5000) });
    for (const chunked of [false, true]) {
      const req = { method: "POST", path: "/api/projects/1/insights/", headers: json, body: big, chunked };
      const res = await rawRequest(h.base, req);
      expect(res.status).toBe(413);
      expect((res.body as { code: string }).code).toBe("payload_too_large");
      await assertSafeAnswer(req, res);
    }
    const small = await rawRequest(h.base, { method: "POST", path: "/api/projects/1/insights/", headers: json, body: JSON.stringify({ name: "x", filters: { pad: "x".repeat(3500) } }) });
    expect(small.status).toBe(201);
  });

  it("frees what aborted requests held: half bodies and half headers, 300 times, leave no connection behind", async () => {
    const { port } = new URL(h.base);
    const abort = (payload: string) =>
      new Promise<void>((resolve) => {
        const socket = net.connect(Number(port), "127.0.0.1", () => {
          socket.write(payload, () => {
            socket.destroy();
            resolve();
          });
        });
        socket.on("error", () => resolve());
      });
    const head = (len: number) => `POST /api/projects/1/insights/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OWNER_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n`;
    const count = async () => ((await rawRequest(h.base, { method: "GET", path: "/api/projects/1/insights/", headers: auth })).body as { count: number }).count;
    const before = await count();
    for (let i = 0; i < 100; i++) {
      await abort(head(4000) + '{"name":"' + "y".repeat(1000));
      await abort(`PATCH /api/projects/1/persons/1/ HTTP/1.1\r\nHost: x\r\nContent-Le`);
      await abort(head(100_000) + "{");
    }
    expect(await count()).toBe(before);
    let open = Infinity;
    for (let i = 0; i < 200 && open > 1; i++) {
      open = await new Promise<number>((resolve) => h.server.getConnections((_e, n) => resolve(n)));
      if (open > 1) await new Promise((r) => setTimeout(r, 25));
    }
    // At most the keep-alive connection of the request just made.
    expect(open).toBeLessThanOrEqual(1);
  });
});

/** Bugs this suite found and that were fixed (commit "Read bodies only for operations that declare one"). */
describe("routing and body reading", () => {
  let h: HostileServer;
  beforeAll(async () => {
    h = await startHostileServer(scenario("basic"));
  });
  afterAll(() => h.close());
  const safe = async (req: RawRequest) => {
    const res = await rawRequest(h.base, req);
    await assertSafeAnswer(req, res);
    return res;
  };

  it("a path segment that does not decode is a 4xx with the Error shape", async () => {
    for (const p of ["/api/projects/%ZZ/insights/", "/api/projects/1/insights/%/", "/api/projects/1/persons/%E0%A4%A/"]) {
      expect((await safe({ method: "GET", path: p, headers: auth })).status).toBeLessThan(500);
    }
  });

  it("an unknown path with a non-JSON body is a routing error, not a 415", async () => {
    const res = await safe({ method: "POST", path: "/api/projects//insights/", headers: { ...auth, "content-type": "text/plain" }, body: "x" });
    expect([404, 405]).toContain(res.status);
  });

  it("a GET or DELETE with a body in another charset, or over the limit, conforms", async () => {
    await safe({ method: "GET", path: "/api/projects/1/insights/", headers: { ...auth, "content-type": "application/json; charset=latin1" }, body: "{}" });
    await safe({ method: "DELETE", path: "/api/projects/1/persons/2/", headers: { ...auth, "content-type": "text/plain" }, body: "x".repeat(2_000_000) });
  });

  it("DELETE insight with an undeclared parameter conforms", async () => {
    await safe({ method: "DELETE", path: "/api/projects/1/insights/1/?unknown=1", headers: auth });
  });
});
