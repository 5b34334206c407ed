import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { TestProject } from "vitest/node";
import type { ToolName, ToolStatus } from "./external-tools.ts";

/**
 * Vitest global set-up: looks for each external tool once per run and hands the result to the test files
 * (`inject("externalTools")`, read through `external-tools.ts`).
 */
export default async function findExternalTools(project: TestProject): Promise<void> {
  const tools: Record<ToolName, ToolStatus> = { chromium: await findChromium(), java: findJava() };
  project.provide("externalTools", tools);
}

const DEBIAN_CHROMIUM = "/usr/bin/chromium";
const CACHE = fileURLToPath(new URL("../../node_modules/.cache/analytics-mock", import.meta.url));

/** Runs `file args` and returns what it printed (stdout and stderr), or throws with the reason it did not run. */
function printed(file: string, args: string[]): string {
  const run = spawnSync(file, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") throw new Error(`${file} not found`);
  if (run.error) throw new Error(`${file} ${args.join(" ")} failed: ${run.error.message}`);
  const output = `${run.stdout}${run.stderr}`;
  if (run.status !== 0) throw new Error(`${file} ${args.join(" ")} failed: ${output.trim().split("\n")[0] ?? `exit ${run.status}`}`);
  return output;
}

function probeChromium(executable: string): ToolStatus {
  try {
    const version = printed(executable, ["--version"]).trim();
    return /chrom/i.test(version) ? { found: true, path: executable, version } : { found: false, problem: `${executable} is not Chromium (${version})` };
  } catch (e) {
    return { found: false, problem: (e as Error).message };
  }
}

/**
 * The browser npm provides: @sparticuz/chromium ships a brotli-compressed headless Chromium inside the
 * package, unpacked here once per version. The library unpacks into `os.tmpdir()`, one fixed path shared by
 * every user of the machine, so it is pointed at a scratch folder that is then renamed into the project's
 * cache: a run never sees a half-unpacked binary, and two checkouts never share a stale one.
 */
async function unpackNpmChromium(): Promise<string> {
  const entry = createRequire(import.meta.url).resolve("@sparticuz/chromium");
  const root = entry.slice(0, entry.lastIndexOf(`${path.sep}build${path.sep}`));
  const { version } = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { version: string };
  const target = path.join(CACHE, `chromium-${version}`);
  if (existsSync(path.join(target, "chromium"))) return path.join(target, "chromium");
  mkdirSync(CACHE, { recursive: true });
  const scratch = mkdtempSync(path.join(CACHE, "unpacking-"));
  const tmpdir = process.env.TMPDIR;
  try {
    process.env.TMPDIR = scratch;
    const { default: Chromium } = await import("@sparticuz/chromium");
    await Chromium.executablePath();
  } finally {
    if (tmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdir;
  }
  try {
    renameSync(scratch, target);
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // another run unpacked the same version first
  }
  return path.join(target, "chromium");
}

/** CHROMIUM_PATH if set (and nothing else then); otherwise npm's Chromium, else Debian's. */
export async function findChromium(env = process.env): Promise<ToolStatus> {
  if (env.CHROMIUM_PATH) return probeChromium(env.CHROMIUM_PATH);
  let npm: ToolStatus;
  try {
    npm = probeChromium(await unpackNpmChromium());
  } catch (e) {
    npm = { found: false, problem: `@sparticuz/chromium: ${(e as Error).message}` };
  }
  if (npm.found || !existsSync(DEBIAN_CHROMIUM)) return npm;
  const debian = probeChromium(DEBIAN_CHROMIUM);
  return debian.found ? debian : { found: false, problem: `${npm.problem}; ${debian.problem}` };
}

/** Java 17 or later on PATH (Specmatic 2.55's jar needs it). */
function findJava(): ToolStatus {
  try {
    const version = printed("java", ["-version"]);
    const major = Number(/version "(?:1\.)?(\d+)/.exec(version)?.[1] ?? 0);
    const line = version.trim().split("\n")[0]!;
    return major >= 17 ? { found: true, path: "java", version: line } : { found: false, problem: `java is ${line}, Specmatic needs 17 or later` };
  } catch (e) {
    return { found: false, problem: (e as Error).message };
  }
}
