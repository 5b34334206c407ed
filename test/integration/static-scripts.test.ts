/**
 * posthog-js's extension scripts under /static/ (issue 40): the installed package's own files, with a script's
 * content type, any origin, and caching that holds only for the version served. The expected bytes and version
 * are read here from node_modules/posthog-js itself, not through the server's code.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectFile } from "../../src/util/project-files.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { callControl } from "../support/control-contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

const INSTALLED = (JSON.parse(readFileSync(projectFile("node_modules/posthog-js/package.json"), "utf8")) as { version: string }).version;
const dist = (file: string) => readFileSync(projectFile(`node_modules/posthog-js/dist/${file}`), "utf8");

/** What posthog-js 1.449's default bundle asks for once the features are on (its loadExternalDependency calls). */
const LAZY_ENTRIES = ["surveys.js", "exception-autocapture.js", "web-vitals-with-attribution.js", "web-vitals.js", "dead-clicks-autocapture.js", "lazy-recorder.js", "tracing-headers.js", "product-tours.js"];

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer(scenario("features"));
});
afterAll(() => s.close());

const lastLogged = async () => (await callControl(s.base, "GET", "/requests/?limit=1")).body.results[0];

describe("GET /static/<file>", () => {
  it.each(LAZY_ENTRIES)("serves %s from the installed posthog-js, as a script any origin may load", async (file) => {
    const res = await captureRequest(s.base, "GET", `/static/${file}`, { headers: { origin: "https://shop.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(res.body).toBe(dist(file));
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
  });

  it("answers a preflight and a HEAD for any origin, the HEAD without a body", async () => {
    const preflight = await fetch(`${s.base}/static/surveys.js`, { method: "OPTIONS", headers: { origin: "https://shop.example", "access-control-request-method": "GET" } });
    expect(preflight.status).toBe(200);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET,HEAD,OPTIONS");
    const head = await fetch(`${s.base}/static/surveys.js`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(dist("surveys.js"))));
    expect(await head.text()).toBe("");
  });

  it("answers 404 in the one error shape for a file posthog-js does not load, and for paths out of dist/", async () => {
    // toolbar.js is PostHog's web app's, not in the posthog-js package: no stub is served for it.
    for (const path of ["/static/nothing.js", "/static/toolbar.js", "/static/surveys.js.map", "/static/module.js", `/static/${INSTALLED}/nothing.js`, "/static/..%2Fpackage.json"]) {
      const res = await captureRequest(s.base, "GET", path);
      expect(res.status, path).toBe(404);
      expect(res.body).toMatchObject({ type: "invalid_request", code: "not_found", attr: null });
    }
  });
});

describe("GET /static/<version>/<file>", () => {
  it("serves the installed version's file for a year, without a note", async () => {
    const res = await captureRequest(s.base, "GET", `/static/${INSTALLED}/exception-autocapture.js`);
    expect(res.status).toBe(200);
    expect(res.body).toBe(dist("exception-autocapture.js"));
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const logged = await lastLogged();
    expect(logged).toMatchObject({ method: "GET", path: `/static/${INSTALLED}/exception-autocapture.js`, status: 200 });
    expect(logged.notes).toBeUndefined();
  });

  it("serves another version's request with the installed file, cached briefly, and the request log says so", async () => {
    const res = await captureRequest(s.base, "GET", "/static/1.200.0/dead-clicks-autocapture.js");
    expect(res.status).toBe(200);
    expect(res.body).toBe(dist("dead-clicks-autocapture.js"));
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect((await lastLogged()).notes).toEqual([`posthog-js 1.200.0 was asked for; the installed ${INSTALLED} was served (the server has no other version).`]);
  });

  it("answers 304 to a page that holds the installed version's copy", async () => {
    const first = await captureRequest(s.base, "GET", "/static/surveys.js");
    const again = await captureRequest(s.base, "GET", "/static/surveys.js", { headers: { "if-none-match": first.headers.get("etag")! } });
    expect(first.headers.get("etag")).toBe(`"posthog-js-${INSTALLED}"`);
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
  });
});
