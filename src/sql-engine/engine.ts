/**
 * The embedded ClickHouse (chdb) behind one small interface: `query(sql, options) → { columns, types, rows }`.
 * chdb runs in a child process (src/sql-engine/engine-process.mjs; a worker thread would do, but chdb 3.4
 * crashes the process when a worker that loaded it ends), so a query never holds the server's event loop. Each
 * read runs on a fresh connection limited by ClickHouse settings (`max_execution_time`, `max_memory_usage`,
 * `max_result_rows`) and then `readonly = 1`, which also refuses the table functions that reach outside (`file`,
 * `url`, `s3`, `remote`, `executable`…), writes, DDL and any SETTINGS in the query. An abort or an overrun answers
 * the caller at once and kills the query from a second connection (`KILL QUERY`: chdb has no interrupt of its
 * own; ClickHouse stops a killed query between two blocks); a query still running a moment later (a block can
 * take minutes, as with a regex compiled per row) has its process killed, and the next call starts a new one over
 * the same folder. The process as a whole is held under a memory cap (ClickHouse's `max_server_memory_usage`,
 * and on Linux the process's data limit, as ClickHouse's own accounting misses part of what a query takes).
 */
import { fork, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createFairSlots } from "./fair-slots.ts";
import { currentPlatform, exhaustsProcess, fromClickhouse, SqlEngineError, unavailableMessage, type PlatformFacts } from "../core/sql-errors.ts";
import type { SettingValue, EngineMessage, EngineRequest, EngineResult } from "./protocol.ts";

export interface QueryLimits {
  /** Wall time allowed, ms (default 30 s): ClickHouse stops the query past it (`max_execution_time`). */
  timeoutMs?: number;
  /** Memory one query may take (default 2 GiB): `max_memory_usage`. */
  maxMemoryBytes?: number;
  /** Rows the answer may have (default 100,000): more is an error, not a truncation (`max_result_rows`). */
  maxResultRows?: number;
}

export interface QueryOptions extends QueryLimits {
  /** Values for the query's `{name:Type}` placeholders (bound by ClickHouse: never part of the SQL text). */
  params?: Record<string, unknown>;
  /** ClickHouse settings the query runs under (set before the limits and `readonly`, which they cannot undo). */
  settings?: Record<string, SettingValue>;
  signal?: AbortSignal;
  /** Whose query this is (the project): slots are shared fairly between keys (./fair-slots.ts). */
  fairKey?: string;
}

export interface QueryResult {
  columns: string[];
  /** ClickHouse type names (`UInt64`, `DateTime64(6, 'UTC')`, `Nullable(String)`…). */
  types: string[];
  /** Values as ClickHouse's JSONCompact writes them (64-bit integers as numbers). */
  rows: unknown[][];
  rowsRead: number;
  bytesRead: number;
  elapsedMs: number;
}

export interface EngineOptions {
  /** The data folder; null: a temporary folder, removed on close and at exit (`--in-memory`). */
  folder: string | null;
  /** The module the engine process loads (tests name a missing one to take the unavailable path). */
  chdbModule?: string;
  /** Reads running at once (default 3: one project runs at most 2 of them, so one is left for the others; ./fair-slots.ts). */
  concurrency?: number;
  platform?: PlatformFacts;
  /** Memory the engine's process may take in all (default 3 GiB): loads and every running query together. */
  maxProcessBytes?: number;
  /** For tests: called before each request is sent to the process (a test kills it at a known statement). */
  beforeRequest?: (request: { type: EngineRequest["type"]; sql?: string }) => void;
}

export interface SqlEngine {
  /** Resolves with ClickHouse's version once the engine is up; rejects (kind "unavailable") where it cannot be. */
  ready(): Promise<string>;
  readonly folder: string;
  /** How many engine processes have been started: a change means one was killed (its last writes may be lost). */
  generation(): number;
  /** The engine process's pid, null when none runs (for measurements). */
  processId(): number | null;
  /** One read-only query under limits. */
  query(sql: string, options?: QueryOptions): Promise<QueryResult>;
  /** DDL and loads (the mirror's writes), one at a time, without limits: never for a caller's SQL. */
  admin(sql: string): Promise<QueryResult>;
  close(): Promise<void>;
}

export const DEFAULT_LIMITS: Required<QueryLimits> = { timeoutMs: 30_000, maxMemoryBytes: 2 * 1024 ** 3, maxResultRows: 100_000 };
/** The engine process's memory in all: one query's cap, and room for the mirror's loads and a second query. */
export const DEFAULT_PROCESS_BYTES = 3 * 1024 ** 3;
/** What the process takes before ClickHouse counts anything (Node, chdb's code and thread stacks), with headroom. */
const PROCESS_BASE_BYTES = 512 * 1024 ** 2;
/** How long a killed query (abort, overrun) may still run before its process is killed. */
const GRACE_MS = 1_000;
/** How long past its time limit a query still running is killed (ClickHouse's own check usually stops it first). */
const KILL_AFTER_LIMIT_MS = 250;

/** The process file, next to this module in the sources, or under src/ beside the published dist/ bundle. */
function processFile(): string {
  const candidates = [new URL("./engine-process.mjs", import.meta.url), new URL("../src/sql-engine/engine-process.mjs", import.meta.url)];
  return fileURLToPath(candidates.find((c) => existsSync(c)) ?? candidates[0]!);
}

/** A request without its id (the id is given when it is sent). */
type RequestBody = EngineRequest extends infer R ? (R extends EngineRequest ? Omit<R, "id"> : never) : never;

interface EngineProcess {
  child: ChildProcess;
  ready: Promise<string>;
  pending: Map<number, { resolve: (r: EngineResult) => void; reject: (e: SqlEngineError) => void }>;
  failure: SqlEngineError | null;
  /** Killed to end a query stuck past its limit: the other queries it ran are run again elsewhere. */
  killedForOverrun: boolean;
  /** Refs the process while a request waits on it, unrefs it when idle. */
  hold(): void;
}

/** Starts the engine over a data folder (created when missing); its process starts at the first call. */
export function startSqlEngine(options: EngineOptions): SqlEngine {
  const temporary = options.folder === null;
  const folder = options.folder ?? mkdtempSync(path.join(tmpdir(), "analytics-mock-clickhouse-"));
  requireFolder(folder);
  mkdirSync(folder, { recursive: true });
  const removeTemporary = () => temporary && rmSync(folder, { recursive: true, force: true });
  if (temporary) process.once("exit", removeTemporary);
  const platform = options.platform ?? currentPlatform();
  const processBytes = options.maxProcessBytes ?? DEFAULT_PROCESS_BYTES;
  let current: EngineProcess | null = null;
  let unavailable: SqlEngineError | null = null;
  let closed: SqlEngineError | null = null;
  let generation = 0;
  let nextId = 0;

  function spawnProcess(): EngineProcess {
    generation++;
    const connectionArgs = [`--max_server_memory_usage=${Math.max(processBytes - PROCESS_BASE_BYTES, processBytes / 2)}`];
    const child = fork(processFile(), [JSON.stringify({ folder, chdbModule: options.chdbModule ?? "chdb", connectionArgs })], {
      serialization: "advanced",
      ...underDataLimit(processBytes),
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-2000)));
    const proc: EngineProcess = { child, ready: Promise.resolve(""), pending: new Map(), failure: null, killedForOverrun: false, hold: () => holdWhileBusy() };
    // The process keeps the server alive only while something waits on it (an idle server may exit).
    const holdWhileBusy = () => {
      const busy = proc.pending.size > 0;
      for (const handle of [child, child.channel, child.stderr] as ({ ref?: () => void; unref?: () => void } | null | undefined)[]) (busy ? handle?.ref?.() : handle?.unref?.());
    };
    proc.ready = new Promise<string>((resolve, reject) => {
      const fail = (error: SqlEngineError) => {
        proc.failure ??= error;
        reject(proc.failure);
        for (const waiter of proc.pending.values()) waiter.reject(proc.failure);
        proc.pending.clear();
        if (current === proc) current = null;
      };
      child.on("message", (msg: EngineMessage) => {
        if (msg.type === "ready") resolve(msg.version);
        else if (msg.type === "unavailable") fail((unavailable = new SqlEngineError("unavailable", unavailableMessage(platform, msg.cause))));
        else if (msg.type === "failed") fail(new SqlEngineError("engine", `The SQL engine cannot start: ${msg.cause}.`));
        else {
          const waiter = proc.pending.get(msg.id);
          proc.pending.delete(msg.id);
          holdWhileBusy();
          if (msg.ok) waiter?.resolve(msg.result);
          else waiter?.reject(fromClickhouse(msg.error.message, msg.error.code));
          // Replaced at once: the calls after would fail too (see exhaustsProcess).
          if (!msg.ok && exhaustsProcess(msg.error.code)) retire(proc);
        }
      });
      child.on("error", (e) => fail(new SqlEngineError("engine", `The SQL engine's process failed: ${e.message}`)));
      child.on("exit", (code, signal) => fail(new SqlEngineError("engine", `The SQL engine's process ended (${signal ?? `code ${code}`})${stderr ? `: ${stderr.trim().split("\n").pop()}` : ""}`)));
    });
    proc.ready.then(holdWhileBusy, holdWhileBusy);
    return proc;
  }

  function engineProcess(): EngineProcess {
    if (closed) throw closed;
    if (unavailable) throw unavailable;
    if (!current) requireFolder(folder);
    return (current ??= spawnProcess());
  }

  async function send(request: RequestBody, proc = engineProcess()): Promise<EngineResult> {
    await proc.ready;
    if (proc.failure) throw proc.failure;
    options.beforeRequest?.({ type: request.type, sql: "sql" in request ? request.sql : undefined });
    const id = ++nextId;
    return new Promise<EngineResult>((resolve, reject) => {
      proc.pending.set(id, { resolve, reject });
      proc.hold();
      proc.child.send({ ...request, id }, (e) => e && unreachable(proc, id, e));
    });
  }

  /** A request that could not be sent (the channel closed: the process is ending): failed now, the process ended. */
  function unreachable(proc: EngineProcess, id: number, e: Error): void {
    const waiter = proc.pending.get(id);
    proc.pending.delete(id);
    proc.hold();
    waiter?.reject(proc.failure ?? new SqlEngineError("engine", `The SQL engine's process cannot be reached: ${e.message}`));
    retire(proc);
  }

  /** Kills a process that cannot go on; the next call starts another at once rather than meet this one dying. */
  function retire(proc: EngineProcess): void {
    if (current === proc) current = null;
    proc.child.kill("SIGKILL");
  }

  const slots = createFairSlots(options.concurrency ?? 3);

  async function query(sql: string, opts: QueryOptions = {}, again = false): Promise<QueryResult> {
    const limits = { ...DEFAULT_LIMITS, ...withoutUndefined({ timeoutMs: opts.timeoutMs, maxMemoryBytes: opts.maxMemoryBytes, maxResultRows: opts.maxResultRows }) };
    if (opts.signal?.aborted) throw new SqlEngineError("cancelled", "The query was cancelled.");
    const release = await slots.acquire(opts.signal, opts.fairKey);
    let proc: EngineProcess;
    try {
      proc = engineProcess();
    } catch (e) {
      release();
      throw e;
    }
    const tag = `analytics-mock-q-${process.pid}-${++nextId}`;
    const started = performance.now();
    const running = send({ type: "query", sql, params: opts.params ?? null, settings: { ...opts.settings, ...settingsFor(limits, tag) } }, proc);
    // The slot is held until the engine is done with the query (or its process is gone), not only until the
    // caller is answered: a stopped query that still runs keeps its place.
    try {
      const result = await answerWithin(running, {
        timeoutMs: limits.timeoutMs,
        signal: opts.signal,
        stop: () => void send({ type: "kill", tag }, proc).catch(() => undefined),
        killProcess: () => {
          proc.killedForOverrun = true;
          retire(proc);
        },
        done: release,
      });
      return { ...result, elapsedMs: performance.now() - started };
    } catch (e) {
      // Ended with a process killed for another query's overrun (that query was answered with its timeout): once
      // more, on the next process.
      if (!again && proc.killedForOverrun && e instanceof SqlEngineError && e.kind === "engine") return query(sql, opts, true);
      throw e;
    }
  }

  let closing: Promise<void> | null = null;
  return {
    ready: () => {
      try {
        return engineProcess().ready;
      } catch (e) {
        return Promise.reject(e);
      }
    },
    folder,
    generation: () => generation,
    processId: () => current?.child.pid ?? null,
    query,
    admin: async (sql) => ({ ...(await send({ type: "admin", sql })), elapsedMs: 0 }),
    close() {
      closing ??= (async () => {
        const proc = current;
        closed = new SqlEngineError("engine", "The SQL engine is closed.");
        if (proc && !proc.failure) {
          const exited = new Promise((resolve) => proc.child.once("exit", resolve));
          await send({ type: "close" }, proc).catch(() => undefined);
          proc.child.ref();
          proc.child.disconnect?.();
          await exited;
        }
        removeTemporary();
        if (temporary) process.removeListener("exit", removeTemporary);
      })();
      return closing;
    },
  };
}

interface Guard {
  timeoutMs: number;
  signal: AbortSignal | undefined;
  /** Kills the query in ClickHouse (it stops between two blocks). */
  stop: () => void;
  /** Kills the engine's process: the only end of a query stuck inside one block. */
  killProcess: () => void;
  /** Called once the engine is done with the query, whenever that is. */
  done: () => void;
}

/**
 * The engine's answer to one query, or the caller's error as soon as the query is aborted or overruns its limit
 * (ClickHouse checks its time limit between blocks only, and one block of a cross join or of a regex compiled per
 * row can run for minutes): the query is then killed, and its process too if the query still runs after a grace.
 */
function answerWithin(running: Promise<EngineResult>, guard: Guard): Promise<EngineResult> {
  return new Promise<EngineResult>((resolve, reject) => {
    let stopped: SqlEngineError | null = null;
    let processKill: NodeJS.Timeout | undefined;
    const stop = (error: SqlEngineError) => {
      if (stopped) return;
      stopped = error;
      reject(error);
      guard.stop();
      processKill = setTimeout(guard.killProcess, GRACE_MS);
    };
    const onAbort = () => stop(new SqlEngineError("cancelled", "The query was cancelled."));
    guard.signal?.addEventListener("abort", onAbort, { once: true });
    const overrun = setTimeout(() => stop(new SqlEngineError("timeout", `The query ran past its time limit of ${guard.timeoutMs} ms and was stopped.`)), guard.timeoutMs + KILL_AFTER_LIMIT_MS);
    running
      .then(resolve, (e: unknown) => reject(stopped ?? e))
      .finally(() => {
        clearTimeout(overrun);
        clearTimeout(processKill);
        guard.signal?.removeEventListener("abort", onAbort);
        guard.done();
      });
  });
}

/**
 * On Linux, the process's data limit (RLIMIT_DATA, which counts every private writable mapping): past it an
 * allocation fails and ClickHouse refuses the query, where its own accounting misses memory (`groupArray` over
 * `arrayJoin(range(…))` went far past `max_memory_usage`). Set by the shell that then becomes the
 * process; elsewhere only ClickHouse's own caps hold.
 */
function underDataLimit(bytes: number): { execPath?: string; execArgv: string[] } {
  if (process.platform !== "linux" || !existsSync("/bin/sh")) return { execArgv: [] };
  // A hard limit below the cap (set by the machine's owner) leaves the limit as it is rather than stop the engine.
  return { execPath: "/bin/sh", execArgv: ["-c", `ulimit -d ${Math.floor(bytes / 1024)} 2>/dev/null; exec "$0" "$@"`, process.execPath] };
}

/** The folder the engine opens must be one: a file in its place is a one-line error, not a failure deep in a load. */
export function requireFolder(folder: string): void {
  let isFolder = true;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // Missing: made when the engine starts.
  }
  if (!isFolder) throw new SqlEngineError("engine", `The SQL engine's folder ${folder} is not a folder: move it away, and the mirror is made again from the data.`);
}

/** The settings a read runs under; `readonly = 1` last, after which the connection can change nothing. */
function settingsFor(limits: Required<QueryLimits>, tag: string): Record<string, SettingValue> {
  return {
    max_execution_time: limits.timeoutMs / 1000,
    timeout_overflow_mode: "throw",
    max_memory_usage: limits.maxMemoryBytes,
    max_result_rows: limits.maxResultRows,
    result_overflow_mode: "throw",
    output_format_json_quote_64bit_integers: 0,
    log_comment: tag,
    readonly: 1,
  };
}

function withoutUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
