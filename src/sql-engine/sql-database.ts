/**
 * HogQL's database as ClickHouse runs it: the engine (src/sql-engine/engine.ts) over the store's mirror
 * (src/sql-engine/mirror/). Nothing starts before the first query: a server never asked SQL pays nothing. Every
 * query first brings the mirror up to the store, so it sees every write made before it (read-your-writes).
 */
import type { Store } from "../store/store.ts";
import { requireFolder, startSqlEngine, type EngineOptions, type QueryOptions, type QueryResult, type SqlEngine } from "./engine.ts";
import { SqlEngineError } from "../core/sql-errors.ts";
import { createMirror, type Mirror, type MirrorOptions, type SyncReport } from "./mirror.ts";

export interface SqlDatabaseOptions {
  store: Store;
  /** The engine's data folder (sqlFolderFor); null: a temporary one, removed at close and exit. */
  folder: string | null;
  /** For tests: the module the engine loads. */
  chdbModule?: string;
  /** The time limit of a query that names none (ms; the engine's default otherwise). */
  timeoutMs?: number;
  /** For tests: the mirror's file size and a hook before each of its loads. */
  mirror?: MirrorOptions;
  /** For tests: the engine's memory cap and a hook before each of its statements. */
  engine?: Pick<EngineOptions, "maxProcessBytes" | "beforeRequest">;
}

export interface SqlDatabase {
  /** Runs one read-only ClickHouse query over the mirror, current with the store. */
  query(sql: string, options?: QueryOptions): Promise<QueryResult>;
  /** Brings the mirror up to the store without querying (starting the engine if needed). */
  sync(): Promise<SyncReport>;
  /** True once the engine was started (by a first query or sync). */
  started(): boolean;
  /** The engine process's pid, null before the first use (for measurements). */
  engineProcessId(): number | null;
  close(): Promise<void>;
}

/** The engine's folder beside a data file (`data/db.json` → `data/db.clickhouse/`), as the events' columns are. */
export function sqlFolderFor(dataFile: string | null): string | null {
  return dataFile === null ? null : `${dataFile.replace(/\.json$/i, "")}.clickhouse`;
}

const withoutUndefined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/**
 * Brings the mirror up to the store; a load that met a dead engine (killed, out of memory, its server's watchdog)
 * resumes once on the engine started after it, from what the manifest recorded.
 */
async function syncMirror(engine: SqlEngine, mirror: Mirror): Promise<SyncReport> {
  await engine.ready();
  try {
    return await mirror.sync();
  } catch (e) {
    if (!(e instanceof SqlEngineError && e.kind === "engine")) throw e;
    await engine.ready();
    return mirror.sync();
  }
}

/** Checks the data folder now: a file in its place stops the start-up with one line, not every SQL query with a 500. */
export function createSqlDatabase(options: SqlDatabaseOptions): SqlDatabase {
  if (options.folder !== null) requireFolder(options.folder);
  let opened: { engine: SqlEngine; mirror: Mirror } | null = null;
  const open = () => {
    // Replaced by a file while the server runs: every SQL query says so in one line (a 503).
    if (options.folder !== null) requireFolder(options.folder);
    if (!opened) {
      const engine = startSqlEngine({ folder: options.folder, chdbModule: options.chdbModule, ...options.engine });
      opened = { engine, mirror: createMirror(options.store, engine, options.mirror) };
    }
    return opened;
  };
  return {
    async query(sql, queryOptions = {}) {
      const { engine, mirror } = open();
      await syncMirror(engine, mirror);
      if (queryOptions.signal?.aborted) throw new SqlEngineError("cancelled", "The query was cancelled.");
      return engine.query(sql, { timeoutMs: options.timeoutMs, ...withoutUndefined(queryOptions) });
    },
    async sync() {
      const { engine, mirror } = open();
      return syncMirror(engine, mirror);
    },
    started: () => opened !== null,
    engineProcessId: () => opened?.engine.processId() ?? null,
    close: async () => opened?.engine.close(),
  };
}
