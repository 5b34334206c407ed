import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { minimalCalls, requestDefaults, type MinimalCall } from "../support/minimal-calls.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);

/** The three documents the server serves, each a typed client's source (README, "A typed client"). */
const DOCUMENTS = [
  { name: "api", url: "/openapi.json" },
  { name: "capture", url: "/capture/openapi.yaml" },
  { name: "control", url: "/_mock/openapi.yaml" },
] as const;

let s: TestServer;
let dir: string;
const calls = new Map<string, MinimalCall[]>();
const defaults = new Map<string, string[]>();

/** A module calling every operation of one document with openapi-fetch, one call a line (line n+5 is call n). */
const callsModule = (name: string, list: readonly MinimalCall[]) =>
  [`import createClient from "openapi-fetch";`, `import type { paths } from "./${name}-api.js";`, `const client = createClient<paths, "application/json">({ baseUrl: "http://127.0.0.1" });`, `export async function callAll() {`, ...list.map((c) => `  await ${c.source}`), `}`, ""].join("\n");

beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
  dir = mkdtempSync(path.join(tmpdir(), "analytics-mock-typed-operations-"));
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "frontend", private: true, type: "module" }));
  const compilerOptions = { target: "ES2022", lib: ["ES2022", "DOM"], module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, types: [] };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: DOCUMENTS.map((d) => `${d.name}-calls.ts`) }, null, 2));
  for (const { name, url } of DOCUMENTS) {
    const res = await fetch(`${s.base}${url}`);
    expect(res.status).toBe(200);
    const text = await res.text();
    const doc = (url.endsWith(".json") ? JSON.parse(text) : parse(text)) as Record<string, unknown>;
    calls.set(name, minimalCalls(doc));
    defaults.set(name, requestDefaults(doc));
    writeFileSync(path.join(dir, `${name}-calls.ts`), callsModule(name, calls.get(name)!));
    // As the README says: openapi-typescript with no option but the output file, reading the running server.
    await run(process.execPath, [path.join(root, "node_modules/openapi-typescript/bin/cli.js"), `${s.base}${url}`, "-o", `${name}-api.ts`], { cwd: dir });
  }
}, 300_000);

afterAll(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** tsc's errors in `<name>-calls.ts`, each named by the operation whose call it is on. */
function failingOperations(diagnostics: string): string[] {
  return [...diagnostics.matchAll(/^(\w+)-calls\.ts\((\d+),\d+\): (error .*)$/gm)].map(([, name, line, error]) => {
    const call = calls.get(name!)?.[Number(line) - 5];
    return `${name}: ${call?.operationId ?? `line ${line}`}: ${error}`;
  });
}

describe("a typed client generated from each served document with openapi-typescript's defaults", () => {
  it("calls every operation with only what the document requires", { timeout: 300_000 }, async () => {
    for (const { name } of DOCUMENTS) expect(calls.get(name)!.length, name).toBeGreaterThan(0);
    // The case that once failed (issue 41): a dashboard's body requires no field, not even its name.
    expect(calls.get("api")!.find((c) => c.operationId === "dashboards_create")?.source).toBe(
      'client.POST("/api/projects/{project_id}/dashboards/", {"params":{"path":{"project_id":"x"}},"body":{}});',
    );
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const diagnostics = await run(process.execPath, [tsc, "-p", "."], { cwd: dir, maxBuffer: 64 * 1024 * 1024 }).then(
      () => "",
      (e: { stdout?: string; stderr?: string }) => `${e.stdout}${e.stderr}`,
    );
    expect(failingOperations(diagnostics)).toEqual([]);
    expect(diagnostics).toBe("");
  });

  it("finds no optional field with a default in the schemas requests use, at any depth (the generated type would require it)", () => {
    for (const { name } of DOCUMENTS) expect(defaults.get(name), name).toEqual([]);
  });
});
