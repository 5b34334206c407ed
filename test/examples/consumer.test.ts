import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

/**
 * What a contract-test author's project does: depends on analytics-mock, type-checks against its
 * declaration files, starts a bundled scenario. It is compiled by tsc (strict, skipLibCheck off, so the
 * shipped .d.ts files are checked too) and run by node. The dependencies are `file:` links to this
 * checkout (and to its own TypeScript and @types/node), so npm installs offline.
 */
const CONSUMER_MAIN = `import { startServer, scenarios, StartupError, type EmbeddedServer, type paths } from "analytics-mock";

type ProjectsPath = keyof paths & "/api/projects/";
const projects: ProjectsPath = "/api/projects/";

const server: EmbeddedServer = await startServer({ scenario: "basic" });
const res = await fetch(server.url + projects, { headers: { Authorization: "Bearer phx_test_owner_key_0001" } });
const body = (await res.json()) as { count: number };
const clock = await server.clock.advance({ seconds: 3600 });
console.log(JSON.stringify({ status: res.status, count: body.count, now: clock.now, basic: scenarios.basic === undefined ? null : "path" }));
await server.close();

const missing = await startServer({ fixtures: "fixtures/scenarios/basic.json" }).then(
  () => "started",
  (e: unknown) => (e instanceof StartupError ? e.message : "other: " + String(e)),
);
console.log(JSON.stringify({ missing }));

/** Never called: the types name the unit, a bare number of milliseconds does not compile. */
export function typesOnly(s: EmbeddedServer) {
  // @ts-expect-error clock.advance takes { seconds }
  return s.clock.advance(60_000);
}
`;

let dir: string;

beforeAll(() => {
  // The declaration files are built by \`npm run build:types\` (part of \`prepare\`); built here so they are never stale.
  execFileSync(npm, ["run", "build:types", "--silent"], { cwd: root, stdio: "pipe" });
  dir = mkdtempSync(path.join(tmpdir(), "analytics-mock-consumer-"));
  const link = (p: string) => `file:${path.join(root, p)}`;
  const pkg = {
    name: "consumer",
    private: true,
    type: "module",
    dependencies: { "analytics-mock": link(".") },
    devDependencies: { typescript: link("node_modules/typescript"), "@types/node": link("node_modules/@types/node") },
  };
  writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2));
  const tsconfig = { compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, outDir: "out", types: ["node"] }, files: ["main.ts"] };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  writeFileSync(path.join(dir, "main.ts"), CONSUMER_MAIN);
  execFileSync(npm, ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: dir, stdio: "pipe" });
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a consumer project", () => {
  it("finds the declaration files the package's exports name", () => {
    const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { exports: { ".": { types: string } } };
    expect(pkg.exports["."].types).toMatch(/\.d\.ts$/);
    expect(existsSync(path.join(root, pkg.exports["."].types))).toBe(true);
  });

  it("ships no emitter typed EventEmitter<[never]>: the consumer's newer @types/node refuse it under strict (seen with 26)", () => {
    const files = readdirSync(path.join(root, "dist/types"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".d.ts"));
    const offending = files.filter((f) => /\)<\[never\]>|EventEmitter<\[never\]>/.test(readFileSync(path.join(root, "dist/types", f), "utf8")));
    expect(files.length).toBeGreaterThan(10);
    expect(offending).toEqual([]);
  });

  it("type-checks against the shipped .d.ts files, then starts a bundled scenario and gets a clear error for a missing fixture", { timeout: 300_000 }, () => {
    const tsc = path.join(dir, "node_modules/typescript/bin/tsc");
    const diagnostics = (() => {
      try {
        execFileSync(process.execPath, [tsc, "-p", "."], { cwd: dir, encoding: "utf8", stdio: "pipe" });
        return "";
      } catch (e) {
        return String((e as { stdout?: string }).stdout) + String((e as { stderr?: string }).stderr);
      }
    })();
    expect(diagnostics).toBe("");
    const out = execFileSync(process.execPath, ["out/main.js"], { cwd: dir, encoding: "utf8" }).trim().split("\n");
    // basic.json: two projects for the owner, clock frozen at 2024-03-05T12:00:00Z, moved by an hour.
    expect(JSON.parse(out[0]!)).toEqual({ status: 200, count: 2, now: "2024-03-05T13:00:00.000Z", basic: "path" });
    const { missing } = JSON.parse(out[1]!) as { missing: string };
    expect(missing).toContain(path.join(dir, "fixtures/scenarios/basic.json"));
    expect(missing).toContain("does not exist");
    expect(missing).toContain("bundled scenario");
  });
});
