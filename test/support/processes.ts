import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";

/** A port nobody listens on right now (the OS picks it), for tools that cannot listen on port 0 themselves. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

export interface Spawned {
  child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts a command and collects its output; `stop` ends it (SIGTERM, then SIGKILL if it lingers). */
export function start(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Spawned {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
  let text = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return {
    child,
    output: () => text,
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Waits until the process prints a line matching `ready`; rejects with its output if it exits first. */
export function waitForOutput(p: Spawned, ready: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!ready.test(p.output())) return;
      cleanup();
      resolve();
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`process exited (code ${code}) before printing ${ready}:\n${p.output().slice(-4000)}`));
    };
    const cleanup = () => {
      p.child.stdout!.off("data", check);
      p.child.stderr!.off("data", check);
      p.child.off("close", onExit);
    };
    p.child.stdout!.on("data", check);
    p.child.stderr!.on("data", check);
    p.child.once("close", onExit);
    check();
  });
}
