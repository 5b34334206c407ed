import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertConforms } from "../support/contract.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Child processes run asynchronously: the server answering them lives in this process. */
const run = promisify(execFile);
const MARKER = "<!-- typed-client-example";

/** The README's typed-client example: the ```ts block after the marker, without the list item's indentation. */
function readmeExample(): string {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const after = readme.slice(readme.indexOf(MARKER));
  const block = /```ts\n([\s\S]*?)\n\s*```/.exec(after);
  if (!block) throw new Error("README: no ```ts block after the typed-client marker");
  const indent = /^ */.exec(block[1]!)![0].length;
  return block[1]!.split("\n").map((line) => line.slice(indent)).join("\n") + "\n";
}

/** What the compiler would have to be told instead of working it out: `as`, `<T>x` and `x!`. */
function casts(source: string): string[] {
  const file = ts.createSourceFile("client.ts", source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node)) found.push(node.getText(file));
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Loaded before the example with `node --import`: appends every response the client gets to a file, for the contract check. */
const RECORD_FETCH = `import { appendFileSync } from "node:fs";
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const request = new Request(input, init);
  const res = await realFetch(request);
  const text = await res.clone().text();
  const url = new URL(request.url);
  appendFileSync(process.env.RESPONSES_FILE, JSON.stringify({ method: request.method, path: url.pathname + url.search, status: res.status, contentType: res.headers.get("content-type"), text }) + "\\n");
  return res;
};
`;

let s: TestServer;
let dir: string;

beforeAll(async () => {
  s = await startTestServer(scenario("basic"));
  dir = mkdtempSync(path.join(tmpdir(), "analytics-mock-typed-client-"));
  // The project's own node_modules stand in for the consumer's `npm install openapi-fetch openapi-typescript typescript`.
  symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"), "dir");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "frontend", private: true, type: "module" }));
  const compilerOptions = { target: "ES2022", lib: ["ES2022", "DOM"], module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, types: [], outDir: "out" };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["client.ts"] }, null, 2));
  writeFileSync(path.join(dir, "client.ts"), readmeExample().replace("http://127.0.0.1:8000", s.base));
  writeFileSync(path.join(dir, "record-fetch.mjs"), RECORD_FETCH);
}, 120_000);

afterAll(async () => {
  await s?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the README's typed client", () => {
  it("has no cast", () => {
    expect(casts(readmeExample())).toEqual([]);
  });

  it("compiles under tsc --strict against types generated from the served /openapi.json with default options, and runs", { timeout: 300_000 }, async () => {
    // As the README says: openapi-typescript with no option but the output file, reading the running server.
    await run(process.execPath, [path.join(root, "node_modules/openapi-typescript/bin/cli.js"), `${s.base}/openapi.json`, "-o", "analytics-api.ts"], { cwd: dir });
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    const diagnostics = await run(process.execPath, [tsc, "-p", "."], { cwd: dir }).then(
      () => "",
      (e: { stdout?: string; stderr?: string }) => `${e.stdout}${e.stderr}`,
    );
    expect(diagnostics).toBe("");

    const responsesFile = path.join(dir, "responses.jsonl");
    const { stdout } = await run(process.execPath, ["--import", "./record-fetch.mjs", "out/client.js"], { cwd: dir, env: { ...process.env, RESPONSES_FILE: responsesFile } });
    const out = stdout.trim().split("\n");
    // basic.json, clock at 2024-03-05T12:00Z: five pageviews by three persons on 1–3 March, all three signed up.
    expect(out).toEqual([
      "insight: Daily pageviews",
      "trend $pageview: 0 0 0 3 1 1 0 0 (total 5)",
      "funnel 1. $pageview: 3",
      "funnel 2. signup: 3",
      "sql $pageview 5",
      "sql signup 3",
      "sql purchase 2",
      "sql $pageleave 1",
    ]);

    const responses = readFileSync(responsesFile, "utf8").trim().split("\n").map((line) => JSON.parse(line) as { method: string; path: string; status: number; contentType: string | null; text: string });
    expect(responses.map((r) => [r.method, r.status])).toEqual([["POST", 201], ["PATCH", 200], ["POST", 200], ["POST", 200], ["POST", 200]]);
    for (const r of responses) await assertConforms({ method: r.method, path: r.path, status: r.status, contentType: r.contentType, body: JSON.parse(r.text) });
  });
});
