/**
 * The embedded ClickHouse (chdb) behind one small interface: `query(sql, options) → { columns, types, rows }`.
 * chdb runs in a child process (src/sql-engine/engine-process.mjs; a worker thread would do, but chdb 3.4
 * crashes the process when a worker that loaded it ends), so a query never holds the server's event loop. Each
 * read runs on a fresh connection limited by ClickHouse settings (`max_execution_time`, `max_memory_usage`,
 * `max_result_rows`) and then `readonly = 1`, which also refuses the table functions that reach outside (`file`,
 * `url`, `s3`, `remote`, `executable`…), writes, DDL and any SETTINGS in the query. An abort kills the query from
 * a second connection (`KILL QUERY`: chdb has no interrupt of its own, but ClickHouse stops a killed query within
 * milliseconds); a query still running well past its limits has its process killed, and the next call starts a
 * new one over the same folder.
 */
import { fork, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { currentPlatform, fromClickhouse, SqlEngineError, unavailableMessage, type PlatformFacts } from "./errors.ts";
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
  /** Reads running at once (default 2, the machine's cores here). */
  concurrency?: number;
  platform?: PlatformFacts;
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
/** How long past its limit (or its abort) a query may go unanswered before its process is killed. */
const GRACE_MS = 5_000;
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
  /** Refs the process while a request waits on it, unrefs it when idle. */
  hold(): void;
}

/** Starts the engine over a data folder (created when missing); its process starts at the first call. */
export function startSqlEngine(options: EngineOptions): SqlEngine {
  const temporary = options.folder === null;
  const folder = options.folder ?? mkdtempSync(path.join(tmpdir(), "analytics-mock-clickhouse-"));
  mkdirSync(folder, { recursive: true });
  const removeTemporary = () => temporary && rmSync(folder, { recursive: true, force: true });
  if (temporary) process.once("exit", removeTemporary);
  const platform = options.platform ?? currentPlatform();
  let current: EngineProcess | null = null;
  let unavailable: SqlEngineError | null = null;
  let closed: SqlEngineError | null = null;
  let generation = 0;
  let nextId = 0;

  function spawnProcess(): EngineProcess {
    generation++;
    const child = fork(processFile(), [JSON.stringify({ folder, chdbModule: options.chdbModule ?? "chdb" })], {
      serialization: "advanced",
      execArgv: [],
      stdio: ["ignore", "ignore", "pipe", "ipc"],
    });
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => void (stderr = (stderr + chunk.toString()).slice(-2000)));
    const proc: EngineProcess = { child, ready: Promise.resolve(""), pending: new Map(), failure: null, hold: () => holdWhileBusy() };
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
        else {
          const waiter = proc.pending.get(msg.id);
          proc.pending.delete(msg.id);
          holdWhileBusy();
          if (msg.ok) waiter?.resolve(msg.result);
          else waiter?.reject(fromClickhouse(msg.error.message, msg.error.code));
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
    return (current ??= spawnProcess());
  }

  async function send(request: RequestBody, proc = engineProcess()): Promise<EngineResult> {
    await proc.ready;
    if (proc.failure) throw proc.failure;
    const id = ++nextId;
    return new Promise<EngineResult>((resolve, reject) => {
      proc.pending.set(id, { resolve, reject });
      proc.hold();
      proc.child.send({ ...request, id });
    });
  }

  const slots = createSemaphore(options.concurrency ?? 2);

  async function query(sql: string, opts: QueryOptions = {}): Promise<QueryResult> {
    const limits = { ...DEFAULT_LIMITS, ...withoutUndefined({ timeoutMs: opts.timeoutMs, maxMemoryBytes: opts.maxMemoryBytes, maxResultRows: opts.maxResultRows }) };
    if (opts.signal?.aborted) throw new SqlEngineError("cancelled", "The query was cancelled.");
    const release = await slots.acquire(opts.signal);
    const proc = engineProcess();
    const tag = `analytics-mock-q-${process.pid}-${++nextId}`;
    let hardKill: NodeJS.Timeout | undefined;
    const stop = (afterMs: number) => {
      send({ type: "kill", tag }, proc).catch(() => undefined);
      hardKill ??= setTimeout(() => proc.child.kill("SIGKILL"), afterMs);
    };
    const onAbort = () => stop(GRACE_MS);
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    // ClickHouse checks its time limit between blocks only (a cross join can run long past it): just after the
    // limit the query is killed, and its process if even that is not answered within the grace.
    const guard = setTimeout(() => stop(GRACE_MS), limits.timeoutMs + KILL_AFTER_LIMIT_MS);
    const started = performance.now();
    try {
      const result = await send({ type: "query", sql, params: opts.params ?? null, settings: { ...opts.settings, ...settingsFor(limits, tag) } }, proc);
      return { ...result, elapsedMs: performance.now() - started };
    } catch (e) {
      const code = e instanceof SqlEngineError ? e.clickhouseCode : null;
      if (opts.signal?.aborted) throw new SqlEngineError("cancelled", "The query was cancelled.", code);
      if (hardKill !== undefined) throw new SqlEngineError("timeout", `The query ran past its time limit of ${limits.timeoutMs} ms and was stopped.`, code);
      throw e;
    } finally {
      clearTimeout(guard);
      clearTimeout(hardKill);
      opts.signal?.removeEventListener("abort", onAbort);
      release();
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

/** At most `n` holders at once; waiters leave the queue when their signal aborts. */
function createSemaphore(n: number) {
  let free = n;
  const waiters: (() => void)[] = [];
  const release = () => {
    const next = waiters.shift();
    if (next) next();
    else free++;
  };
  return {
    acquire(signal?: AbortSignal): Promise<() => void> {
      if (free > 0) {
        free--;
        return Promise.resolve(release);
      }
      return new Promise((resolve, reject) => {
        const grant = () => {
          signal?.removeEventListener("abort", onAbort);
          resolve(release);
        };
        const onAbort = () => {
          waiters.splice(waiters.indexOf(grant), 1);
          reject(new SqlEngineError("cancelled", "The query was cancelled."));
        };
        waiters.push(grant);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
  };
}
