/**
 * A server stand-in for test/unit/sql-engine/engine.test.ts: starts the SQL engine, runs the query given as its
 * argument and prints the engine's pid once the query runs; the test then kills this process (SIGKILL).
 */
import { startSqlEngine } from "../../src/sql-engine/engine.ts";

const engine = startSqlEngine({ folder: null });
await engine.ready();
engine.query(process.argv[2] ?? "SELECT 1", { timeoutMs: 600_000 }).catch(() => undefined);
// The query is on its way: the engine runs it within milliseconds.
setTimeout(() => process.stdout.write(`engine ${engine.processId()} running\n`), 200);
