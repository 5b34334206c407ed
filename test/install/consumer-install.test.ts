import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servePosthogPage } from "../support/browser.ts";
import { chromium, toolsRequired } from "../support/external-tools.ts";
import { SHOP_HTML } from "../support/shop-page.ts";

/**
 * The package installed into another project as the README says: linked to this checkout, and copied
 * (`--install-links`) from a fresh clone. Each consumer has its own `@playwright/test`, compiles the README's
 * Playwright example with `tsc --strict`, and runs it with `npx playwright test`. A fresh clone linked without
 * an install of its own stops with a message saying what to run.
 * A fresh clone is the working tree's files as git sees them (tracked and not ignored): no node_modules, no
 * dist/, uncommitted work included.
 *
 * It installs the package's dependencies into a project (minutes), so it runs under CI (and
 * ANALYTICS_MOCK_REQUIRE_ALL); elsewhere it is skipped, and says so. One npm cache serves every install
 * (`--prefer-offline`), the consumer's own dependencies are installed once and copied, and re2 is handed
 * this checkout's compiled binary through its installer's mirror variables instead of compiling it again.
 */
const root = fileURLToPath(new URL("../..", import.meta.url));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const INSTALL = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"];
const MINUTES = 60_000;

const own = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string>; dependencies: Record<string, string> };
const version = (name: string) => own.devDependencies[name] ?? own.dependencies[name];

const CONFIG = `import { defineConfig } from "@playwright/test";

export default defineConfig({
  testDir: "tests",
  workers: 1,
  reporter: [["list"]],
  timeout: 60_000,
  expect: { timeout: 15_000 },
  use: {
    browserName: "chromium",
    launchOptions: { executablePath: process.env.CHROMIUM_PATH, args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking"] },
  },
});
`;

const TSCONFIG = {
  compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, skipLibCheck: false, noEmit: true, types: ["node"] },
  include: ["playwright.config.ts", "tests"],
};

/** Where a phase's time goes, printed at the end: the install is the slow part and CI's budget is finite. */
const timings: string[] = [];
function timed<T>(label: string, run: () => T): T {
  const start = Date.now();
  const result = run();
  timings.push(`${label}: ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return result;
}

function sh(cwd: string, file: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    return execFileSync(file, args, { cwd, encoding: "utf8", stdio: "pipe", env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });
  } catch (e) {
    const { stdout, stderr } = e as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(" ")} (in ${cwd}) failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

/** The working tree as a fresh clone holds it: the files git tracks or would track. */
function freshClone(into: string): string {
  const listed = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "-z"], { cwd: root, encoding: "utf8" });
  for (const file of listed.split("\0").filter((f) => f !== "" && existsSync(path.join(root, f)))) {
    mkdirSync(path.dirname(path.join(into, file)), { recursive: true });
    copyFileSync(path.join(root, file), path.join(into, file));
  }
  return into;
}

/** re2's installer reads a prebuilt binary from a mirror before compiling; a local folder holding ours will do. */
function re2Mirror(dir: string): NodeJS.ProcessEnv {
  const slot = `${process.platform}-${process.arch}-${process.versions.modules}`;
  copyFileSync(path.join(root, "node_modules/re2/build/Release/re2.node"), path.join(dir, slot));
  // SCARF_ANALYTICS: swagger-ui-dist's install-time telemetry stays quiet (this project's allowScripts denies it).
  return { RE2_DOWNLOAD_MIRROR: dir, RE2_DOWNLOAD_SKIP_PATH: "1", RE2_DOWNLOAD_SKIP_VER: "1", SCARF_ANALYTICS: "false" };
}

/** A consumer project with its own Playwright, TypeScript and Node types, installed once. */
function consumerTemplate(dir: string): string {
  const pkg = {
    name: "consumer",
    private: true,
    type: "module",
    devDependencies: { "@playwright/test": version("@playwright/test"), typescript: version("typescript"), "@types/node": version("@types/node") },
  };
  writeFileSync(path.join(dir, "package.json"), JSON.stringify(pkg, null, 2));
  writeFileSync(path.join(dir, "playwright.config.ts"), CONFIG);
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  mkdirSync(path.join(dir, "tests"));
  copyFileSync(path.join(root, "test/playwright/shop.spec.ts"), path.join(dir, "tests/shop.spec.ts"));
  timed("the consumer's own dependencies", () => sh(dir, npm, ["install", ...INSTALL]));
  return dir;
}

function runPlaywright(cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("npx", ["playwright", "test"], { cwd, env: { ...process.env, ...env, CI: "" }, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, output: stdout + stderr }),
    );
  });
}

const refParserVersions = (cwd: string): string[] => {
  const tree = JSON.parse(sh(cwd, npm, ["ls", "@apidevtools/json-schema-ref-parser", "--all", "--json"])) as object;
  return [...JSON.stringify(tree).matchAll(/"@apidevtools\/json-schema-ref-parser":\{"version":"([^"]+)"/g)].map((m) => m[1]!);
};

function installTests(): void {
  let scratch: string;
  let template: string;
  let re2: NodeJS.ProcessEnv;
  let site: Awaited<ReturnType<typeof servePosthogPage>>;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(tmpdir(), "analytics-mock-install-"));
    mkdirSync(path.join(scratch, "re2"));
    re2 = re2Mirror(path.join(scratch, "re2"));
    mkdirSync(path.join(scratch, "template"));
    template = consumerTemplate(path.join(scratch, "template"));
    site = await servePosthogPage(SHOP_HTML);
  }, 10 * MINUTES);

  afterAll(async () => {
    await site?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    console.log(`install test timings:\n  ${timings.join("\n  ")}`);
  });

  /** Installs the package into a copy of the template, then compiles and runs the README's example there. */
  async function installAndRun(name: string, args: string[], extra: { overrides?: Record<string, string> } = {}): Promise<string> {
    const dir = path.join(scratch, name);
    cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
    if (extra.overrides) {
      const pkg = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as object;
      writeFileSync(path.join(dir, "package.json"), JSON.stringify({ ...pkg, overrides: extra.overrides }, null, 2));
    }
    timed(`${name}: npm install --save-dev ${args.join(" ")}`, () => sh(dir, npm, ["install", "--save-dev", ...INSTALL, ...args], re2));
    const diagnostics = timed(`${name}: tsc --strict`, () => {
      try {
        sh(dir, process.execPath, [path.join(dir, "node_modules/typescript/bin/tsc"), "-p", "."]);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    });
    expect(diagnostics).toBe("");
    const start = Date.now();
    const { code, output } = await runPlaywright(dir, { SHOP_URL: site.base, CHROMIUM_PATH: chromium.path });
    timings.push(`${name}: npx playwright test: ${((Date.now() - start) / 1000).toFixed(1)} s`);
    expect(output, output).not.toContain("Requiring @playwright/test second time");
    expect(output, output).toMatch(/\b2 passed\b/);
    expect(code, output).toBe(0);
    return dir;
  }

  it("linked to this checkout: the kit runs with the consumer's @playwright/test", { timeout: 15 * MINUTES }, async () => {
    const dir = await installAndRun("linked-checkout", [root]);
    expect(sh(dir, "readlink", ["node_modules/analytics-mock"]).trim()).not.toBe("");
  });

  it("copied from a fresh clone (--install-links): built after install; with the README's overrides only ref-parser 15 is installed", { timeout: 20 * MINUTES }, async () => {
    const clone = freshClone(path.join(scratch, "clone-copied"));
    const overrides = { "@apidevtools/json-schema-ref-parser": version("@apidevtools/json-schema-ref-parser")! };
    const dir = await installAndRun("copied-clone", ["--install-links", clone], { overrides });
    expect(existsSync(path.join(dir, "node_modules/analytics-mock/dist/types/playwright/index.d.ts"))).toBe(true);
    // npm ran `prepare` in the clone before packing it and found nothing to build with: the clone stays untouched.
    expect(existsSync(path.join(clone, "node_modules"))).toBe(false);
    expect(new Set(refParserVersions(dir))).toEqual(new Set([overrides["@apidevtools/json-schema-ref-parser"]]));
  });

  it("linked to a fresh clone that has no install of its own: npm stops, saying what to run", { timeout: 5 * MINUTES }, () => {
    const clone = freshClone(path.join(scratch, "clone-linked"));
    const dir = path.join(scratch, "linked-clone");
    cpSync(template, dir, { recursive: true, verbatimSymlinks: true });
    const failure = (() => {
      try {
        sh(dir, npm, ["install", "--save-dev", ...INSTALL, clone]);
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    })();
    expect(failure).toContain(`analytics-mock: ${clone} has no dependencies installed: run \`npm install\` there first, or install it with --install-links`);
  });
}

if (toolsRequired()) {
  chromium.describe("the package installed into another project", installTests);
} else {
  const why = "installs the package into scratch projects (minutes); runs under CI=true or ANALYTICS_MOCK_REQUIRE_ALL=1";
  console.warn(`SKIPPED "the package installed into another project": ${why}`);
  describe.skip(`the package installed into another project (skipped: ${why})`, installTests);
}
