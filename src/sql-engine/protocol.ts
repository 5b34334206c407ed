/** The messages between the SQL engine (src/sql-engine/engine.ts) and its process (engine-process.mjs). */

export type SettingValue = string | number;

export type EngineRequest =
  /** One read on a fresh connection: `settings` are SET first (the last of them `readonly = 1`). */
  | { type: "query"; id: number; sql: string; params: Record<string, unknown> | null; settings: Record<string, SettingValue> }
  /** DDL and loads, on the one writing connection, in arrival order. */
  | { type: "admin"; id: number; sql: string }
  /** Cancels the running query whose `log_comment` setting is `tag`. */
  | { type: "kill"; id: number; tag: string }
  | { type: "close"; id: number };

/** What a request answers: ClickHouse's JSONCompact, split. */
export interface EngineResult {
  columns: string[];
  types: string[];
  rows: unknown[][];
  rowsRead: number;
  bytesRead: number;
}

export type EngineMessage =
  | { type: "ready"; version: string }
  | { type: "unavailable"; cause: string }
  /** chdb loads but the folder cannot be opened (another live server's engine holds it, or it is not a folder). */
  | { type: "failed"; cause: string }
  | { type: "reply"; id: number; ok: true; result: EngineResult }
  | { type: "reply"; id: number; ok: false; error: { message: string; code: number | null } };
