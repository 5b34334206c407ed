import { mkdirSync } from "node:fs";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium, openDocsOperation } from "../support/browser.ts";
import { chromium } from "../support/external-tools.ts";
import { OWNER_KEY, scenario, startTestServer, type TestServer } from "../support/server.ts";

const ARTIFACTS = "test-artifacts";
/** Generous: a cold Chromium on a shared 2-vCPU machine. Playwright waits for conditions, never for time. */
const UI_TIMEOUT = 60_000;

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
});

afterAll(async () => {
  await s?.close();
});

describe("the signpost at /", () => {
  it("serves the capture endpoints' document that the signpost links", async () => {
    const res = await fetch(`${s.base}/capture/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/yaml/);
    const text = await res.text();
    expect(text).toMatch(/^openapi: 3\./m);
    expect(text).toContain("/batch/");
  });

  it("answers a JSON client with the surfaces, as absolute URLs, and no key", async () => {
    for (const accept of ["application/json", "*/*"]) {
      const res = await fetch(`${s.base}/`, { headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const index = (await res.json()) as { surfaces: { path: string; url: string }[]; api_key: string };
      expect(index.surfaces.map((x) => x.path)).toEqual(["/_mock/ui/", "/docs", "/docs/differences", "/api/projects/", "/openapi.json", "/openapi.yaml", "/batch/", "/_mock/requests/"]);
      // Every listed path exists (issue 41: `/_mock/` was a 404); those needing a key or another method say so, not 404.
      for (const surface of index.surfaces) expect((await fetch(surface.url)).status, surface.path).not.toBe(404);
      // posthog-js needs a project's token, not the personal key: basic.json's three projects.
      expect((index as unknown as { projects: { id: string }[] }).projects.map((p) => p.id)).toEqual(scenario("basic").projects!.map((p) => p.id));
      expect(index.surfaces.map((x) => x.url)).toContain(`${s.base}/openapi.json`);
      expect(index.api_key).toContain("npm start");
      expect(JSON.stringify(index)).not.toContain(OWNER_KEY);
    }
  });

  it("answers a browser on this machine with a page linking the surfaces and showing the running server's key", async () => {
    const res = await fetch(`${s.base}/`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    for (const link of ["/docs", "/docs/differences", "/openapi.json", "/openapi.yaml", "/_mock/openapi.yaml"]) expect(html).toContain(`href="${link}"`);
    expect(html).toContain(`<code id="api-key">${OWNER_KEY}</code>`);
    const { projects } = (await (await fetch(`${s.base}/`, { headers: { accept: "application/json" } })).json()) as { projects: { id: string; api_token: string }[] };
    expect(projects).toHaveLength(3);
    for (const p of projects) expect(html).toContain(`<code>${p.api_token}</code> · project ${p.id}`);
    expect(projects.every((p) => /^phc_\w+$/.test(p.api_token))).toBe(true);
    expect(html).toContain(`api_host: &#34;${s.base}&#34;`);
    expect(html).not.toContain("{{");
  });

  it("shows no key to a page that reached the server under another name (DNS rebinding)", async () => {
    for (const path of ["/", "/docs"]) {
      const html = await new Promise<string>((resolve, reject) => {
        const req = http.get(`${s.base}${path}`, { headers: { host: "rebound.example:80", accept: "text/html" } }, (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => (text += chunk.toString()));
          res.on("end", () => resolve(text));
        });
        req.on("error", reject);
      });
      expect(html, path).toContain("<html");
      expect(html, path).not.toContain(OWNER_KEY);
    }
  });
});

describe("differences from the real service", () => {
  it("are one page, linked from the document's introduction, and no longer asides in the reference", async () => {
    const res = await fetch(`${s.base}/docs/differences`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain("<h1>Differences from the real service</h1>");
    expect(html).toContain("<strong><code>GET /events/</code></strong>: <code>distinct_id</code> is a string");
    const items = [...html.matchAll(/<li>.*?<\/strong>: (.*)<\/li>/g)].map((m) => m[1]);
    expect(items.length).toBeGreaterThan(50);
    expect(new Set(items).size).toBe(items.length);

    const doc = await (await fetch(`${s.base}/openapi.json`)).text();
    expect(doc).toContain("(/docs/differences)");
    for (const aside of ["Choice:", "Choices:", "§", "reference: analytics"]) expect(doc).not.toContain(aside);
  });
});

describe("bundled document", () => {
  it("serves one self-contained file as JSON and YAML, without an API key", async () => {
    const json = await fetch(`${s.base}/openapi.json`);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    const text = await json.text();
    const doc = JSON.parse(text) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toContain("/api/projects/{project_id}/insights/trend/");
    const refs = [...text.matchAll(/"\$ref": "([^"]*)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    expect(refs.filter((r) => !r.startsWith("#/"))).toEqual([]);
    // A generator turns a $ref into a path item into a type that does not compile: shared parts live in components.
    expect(refs.filter((r) => r.startsWith("#/paths/"))).toEqual([]);

    const yaml = await fetch(`${s.base}/openapi.yaml`);
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get("content-type")).toMatch(/^application\/yaml/);
    expect(await yaml.text()).toMatch(/^openapi: 3\.1\.0$/m);
  });
});

chromium.describe("/docs in a browser", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("/ explains the printed key and leads to /docs", { timeout: 120_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${s.base}/`);
    await expect(page.getByRole("heading", { name: "Your API key" }).isVisible()).resolves.toBe(true);
    await expect(page.getByText("the personal API key that npm start printed", { exact: false }).isVisible()).resolves.toBe(true);
    await expect(page.locator("pre").innerText()).resolves.toBe(`curl -H "Authorization: Bearer <printed key>" ${s.base}/api/projects/`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/landing.png`, fullPage: true });
    await page.getByRole("link", { name: "/docs", exact: true }).click();
    // The reference's title and its first operations (a long document is listed virtually: only what is in view is drawn).
    await expect(page.locator(".swagger-ui .info .title").innerText()).resolves.toContain("product analytics API");
    await page.locator(".opblock").first().waitFor({ state: "visible" });
    expect(page.url()).toBe(`${s.base}/docs`);
    await page.close();
  });

  it("lists the operations, and Try it out calls this server with the key entered", { timeout: 180_000 }, async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.setDefaultTimeout(UI_TIMEOUT);
    const foreign: string[] = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(s.base) || url.startsWith("data:")) return route.continue();
      foreign.push(url);
      return route.abort();
    });

    const listInsights = await openDocsOperation(page, s.base, "insights", "insights_list");
    await expect(listInsights.getByText("List insights", { exact: true }).count()).resolves.toBe(1);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/docs.png`, fullPage: false });

    // A viewer on this machine finds the running server's key already applied under Authorize.
    await page.locator("button.authorize").first().click();
    const dialog = page.locator(".modal-ux");
    await dialog.getByRole("button", { name: "Remove authorization" }).waitFor({ state: "visible" });
    // One Close button per scheme (the personal key, and a shared insight's token): either closes the dialog.
    await dialog.locator("button.btn-done").first().click();

    const operation = await openDocsOperation(page, s.base, "projects", "projects_list");
    await operation.getByRole("button", { name: "Try it out" }).click();
    await operation.getByRole("button", { name: "Execute" }).click();
    const live = operation.locator(".live-responses-table tr.response");
    await live.waitFor({ state: "visible" });
    expect((await live.locator(".response-col_status").innerText()).trim()).toBe("200");
    expect(await live.locator(".response-col_description").innerText()).toContain('"name": "Web"');
    expect(await operation.locator(".request-url").innerText()).toContain(`${s.base}/api/projects/`);

    expect(foreign).toEqual([]);
    await page.close();
  });

  // Issue 41: the capture and control documents had YAML links only.
  it.each([
    { page: "/docs/capture", operation: "#operations-flags-flags_definitions", title: "Capture and flags (client libraries)", shows: '"flags": [' },
    { page: "/docs/control", operation: "#operations-control-control_clock_retrieve", title: "Control API", shows: '"now": "2024-03-05T12:00:00.000Z"' },
  ])("$page: the document's operations, and Try it out calls this server", { timeout: 180_000 }, async ({ page: path, operation: id, title, shows }) => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.setDefaultTimeout(UI_TIMEOUT);
    await page.goto(`${s.base}${path}`);
    await expect(page.locator("#documents [aria-current=page]").innerText()).resolves.toBe(title);
    const operation = page.locator(id);
    await operation.locator(".opblock-summary").click();
    await operation.getByRole("button", { name: "Try it out" }).click();
    await operation.getByRole("button", { name: "Execute" }).click();
    const live = operation.locator(".live-responses-table tr.response");
    await live.waitFor({ state: "visible" });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTIFACTS}/docs-${path.split("/").pop()}.png`, fullPage: false });
    expect((await live.locator(".response-col_status").innerText()).trim()).toBe("200");
    expect(await live.locator(".response-col_description").innerText()).toContain(shows);
    expect(await operation.locator(".request-url").innerText()).toContain(s.base);
    // The other documents are a link away.
    await expect(page.locator("#documents a", { hasText: "Product API" }).getAttribute("href")).resolves.toBe("/docs");
    await page.close();
  });
});
