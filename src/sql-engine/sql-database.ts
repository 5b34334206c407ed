/**
 * HogQL's database as ClickHouse runs it: the engine (src/sql-engine/engine.ts) over the store's mirror
 * (src/sql-engine/mirror/). Nothing starts before the first query: a server never asked SQL pays nothing. Every
 * query first brings the mirror up to the store, so it sees every write made before it (read-your-writes).
 */
import type { Store } from "../store/store.ts";
import { startSqlEngine, type QueryOptions, type QueryResult, type SqlEngine } from "./engine.ts";
import { SqlEngineError } from "./errors.ts";
import { createMirror, type Mirror, type MirrorOptions, type SyncReport } from "./mirror/mirror.ts";

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

export function createSqlDatabase(options: SqlDatabaseOptions): SqlDatabase {
  let opened: { engine: SqlEngine; mirror: Mirror } | null = null;
  const open = () => {
    if (!opened) {
      const engine = startSqlEngine({ folder: options.folder, chdbModule: options.chdbModule });
      opened = { engine, mirror: createMirror(options.store, engine, options.mirror) };
    }
    return opened;
  };
  return {
    async query(sql, queryOptions = {}) {
      const { engine, mirror } = open();
      await engine.ready();
      await mirror.sync();
      if (queryOptions.signal?.aborted) throw new SqlEngineError("cancelled", "The query was cancelled.");
      return engine.query(sql, { timeoutMs: options.timeoutMs, ...withoutUndefined(queryOptions) });
    },
    async sync() {
      const { engine, mirror } = open();
      await engine.ready();
      return mirror.sync();
    },
    started: () => opened !== null,
    engineProcessId: () => opened?.engine.processId() ?? null,
    close: async () => opened?.engine.close(),
  };
}
