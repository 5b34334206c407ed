import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BASIC_FIXTURE = path.join(ROOT, "fixtures/scenarios/basic.json");

export interface ChildServer {
  url: string;
  pid: number;
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resident memory in KiB, from /proc/<pid>/status. */
  rssKiB(): number;
  /** SIGKILL unless it already ended. */
  kill(): Promise<void>;
}

/**
 * Runs the server as a process of its own, as `npm start` does (`node dist/main.mjs`, built by the global
 * set-up), and resolves once it listens (it must log at `info`, the default: the "listening on" line is how
 * the URL is learnt).
 */
export function startChild(args: string[], nodeArgs: string[] = []): Promise<ChildServer> {
  return launchChild(args, nodeArgs).ready;
}

/** What `npm start` runs, after its build. */
const SERVER_COMMAND = ["--enable-source-maps", "dist/main.mjs"];

/** Children still running; killed when the test process ends, whatever became of their test. */
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Longest wait for the "listening on" line. */
const START_TIMEOUT_MS = 60_000;

/** The process at once (to signal it while it starts) and the server once it listens. */
export function launchChild(args: string[], nodeArgs: string[] = []): { child: ChildProcess; ready: Promise<ChildServer> } {
  const child = spawn(process.execPath, [...nodeArgs, ...SERVER_COMMAND, "--port", "0", "--host", "127.0.0.1", ...args], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.on("exit", () => running.delete(child));
  let out = "";
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const ready = new Promise<ChildServer>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the server did not say "listening on" within ${START_TIMEOUT_MS} ms (is --log-level below info?):\n${out}`));
    }, START_TIMEOUT_MS);
    const onData = (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        child.stdout!.off("data", onData);
        child.stderr!.off("data", onData);
        child.stdout!.on("data", (more: Buffer) => (out += more.toString()));
        child.stderr!.on("data", (more: Buffer) => (out += more.toString()));
        resolve({
          url,
          pid: child.pid!,
          child,
          output: () => out,
          exited,
          rssKiB: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? Number.NaN),
          kill: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
            await exited;
          },
        });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited before listening (code ${code}, signal ${signal}):\n${out}`));
    });
  });
  return { child, ready };
}

/** Runs the server to its end (for start-ups that must fail); resolves with its exit code and output. */
export function runToExit(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...SERVER_COMMAND, "--port", "0", "--host", "127.0.0.1", ...args], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  return new Promise((resolve) => {
    child.on("exit", (code) => resolve({ code, output: out }));
    // A start-up that unexpectedly succeeds is stopped once it says so.
    const check = setInterval(() => {
      if (out.includes("listening on")) child.kill("SIGTERM");
    }, 50);
    child.on("exit", () => clearInterval(check));
  });
}
