import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertControlConforms, callControl } from "../support/control-contract.ts";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

/** The inspector page (`/_mock/ui/`) and its files, served through the control API to its callers only. */
let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(scenario("capture"));
});
afterAll(() => s?.close());

/** A GET of the page or a file, its answer checked against openapi/control.yaml. */
async function getUi(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.base}${path}`, { headers });
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  await assertControlConforms("GET", path, res.status, type.includes("json") ? JSON.parse(text) : text);
  return { status: res.status, type, text };
}

describe("the inspector page", () => {
  it("is an HTML page that loads its modules from under /_mock/ui/ and carries the projects' tokens, never the personal key", async () => {
    const page = await getUi("/_mock/ui/");
    expect(page.status).toBe(200);
    expect(page.type).toBe("text/html; charset=utf-8");
    expect(page.text).toContain('<script type="module" src="/_mock/ui/app.js"></script>');
    // Every module of ui/ is preloaded, and each preload names a file that exists.
    const preloaded = [...page.text.matchAll(/<link rel="modulepreload" href="\/_mock\/ui\/([^"]+)">/g)].map((m) => m[1]);
    expect(preloaded.sort()).toEqual(readdirSync("src/inspector-ui").filter((f) => f.endsWith(".js") && f !== "app.js").sort());
    const session = JSON.parse(/<script id="session" type="application\/json">(.*)<\/script>/.exec(page.text)![1]!);
    expect(Object.keys(session)).toEqual(["projects"]);
    expect(page.text).not.toContain(OWNER_KEY);
    expect(session.projects.map((p: { id: string }) => p.id)).toEqual(s.store.projects.all().map((p) => p.id));
    expect(session.projects[0].api_token).toBe("phc_test_capture_token_0001");
  });

  it("serves every file of src/inspector-ui/ and the vendored uPlot with their media types, no CDN", async () => {
    for (const file of readdirSync("src/inspector-ui")) {
      const answer = await getUi(`/_mock/ui/${file}`);
      expect(answer.status, file).toBe(200);
      expect(answer.type, file).toBe(file.endsWith(".css") ? "text/css; charset=utf-8" : "application/javascript; charset=utf-8");
      expect(answer.text).toBe(readFileSync(`src/inspector-ui/${file}`, "utf8"));
      expect(answer.text).not.toMatch(/https?:\/\/(?!localhost)[a-z]/i);
    }
    const uplot = await getUi("/_mock/ui/uplot.js");
    expect(uplot.text).toContain("uPlot");
    expect((await getUi("/_mock/ui/uplot.css")).type).toBe("text/css; charset=utf-8");
  });

  it("answers an unknown file 404 and a name with a path in it 400, in the API's error shape", async () => {
    const missing = await getUi("/_mock/ui/nothing.js");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text)).toMatchObject({ type: "invalid_request", code: "not_found" });
    const res = await fetch(`${s.base}/_mock/ui/..%2Fpackage.json`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: "validation_error", attr: "asset" });
  });

  it("is refused to a page of a foreign origin, as the rest of the control API", async () => {
    const foreign = await getUi("/_mock/ui/app.js", { origin: "http://evil.example" });
    expect(foreign.status).toBe(403);
    const own = await getUi("/_mock/ui/app.js", { origin: s.base });
    expect(own.status).toBe(200);
  });

  it("is linked from the landing page", async () => {
    const landing = await (await fetch(`${s.base}/`, { headers: { accept: "text/html" } })).text();
    expect(landing).toContain('<a href="/_mock/ui/">/_mock/ui/</a>');
  });

  it("ships with the package: package.json files lists src/ (the page's files are in src/inspector-ui/) and uplot is a runtime dependency", () => {
    const pkg = JSON.parse(readFileSync("package.json", "utf8"));
    expect(pkg.files).toContain("src/");
    expect(pkg.dependencies.uplot).toBeDefined();
  });
});

describe("what steered an answer, in the request log the Requests view shows", () => {
  const lastLogged = async () => (await callControl(s.base, "GET", "/requests/?limit=1")).body.results[0];

  it("names the override that answered, the Prefer that did, and nothing for a plain answer", async () => {
    const made = (await callControl(s.base, "POST", "/overrides/", { operation_id: "insights_list", status: 500, times: 1 })).body;
    expect((await s.get("/api/projects/1/insights/")).status).toBe(500);
    expect((await lastLogged()).notes).toEqual([`steered: override ${made.id}`]);
    expect((await s.get("/api/projects/1/insights/", { headers: { prefer: "code=429" } })).status).toBe(429);
    expect((await lastLogged()).notes).toEqual(["steered: Prefer code=429"]);
    expect((await s.get("/api/projects/1/insights/")).status).toBe(200);
    expect(await lastLogged()).not.toHaveProperty("notes");
  });
});

describe("the state's size (the inspector's State view)", () => {
  it("counts the capture scenario's projects, persons, events and insights, as a reset answers them", async () => {
    const doc = scenario("capture");
    const answer = await callControl(s.base, "GET", "/state/");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ projects: doc.projects!.length, persons: doc.persons?.length ?? 0, events: doc.events?.length ?? 0, insights: doc.insights?.length ?? 0 });
  });
});

describe("waiting for events after one already seen (the live view's long-poll)", () => {
  const capture = (event: string) =>
    fetch(`${s.base}/capture/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: "phc_test_capture_token_0001", event, distinct_id: "live-1" }) });

  it("answers only what came after `after`, and a uuid no longer kept counts every kept event", async () => {
    await callControl(s.base, "DELETE", "/captured/");
    await capture("first");
    await capture("second");
    const kept = (await callControl(s.base, "GET", "/captured/events/")).body.results;
    expect(kept.map((e: { event: string }) => e.event)).toEqual(["second", "first"]);
    const afterNewest = await callControl(s.base, "POST", "/captured/wait/", { after: kept[0].uuid, timeout_ms: 0 });
    expect(afterNewest.body).toMatchObject({ status: "timed_out", count: 0 });
    const afterFirst = await callControl(s.base, "POST", "/captured/wait/", { after: kept[1].uuid, timeout_ms: 0 });
    expect(afterFirst.body.events.map((e: { event: string }) => e.event)).toEqual(["second"]);
    const unknown = await callControl(s.base, "POST", "/captured/wait/", { after: "gone", timeout_ms: 0, count: 2 });
    expect(unknown.body).toMatchObject({ status: "matched", count: 2 });
  });

  it("wakes when a new event arrives after the newest", async () => {
    const newest = (await callControl(s.base, "GET", "/captured/events/?limit=1")).body.results[0].uuid;
    const waiting = callControl(s.base, "POST", "/captured/wait/", { after: newest, timeout_ms: 10_000 });
    await capture("third");
    const answer = (await waiting).body;
    expect(answer.status).toBe("matched");
    expect(answer.events.map((e: { event: string }) => e.event)).toEqual(["third"]);
  });
});
