// The SQL engine's child process: it owns the embedded ClickHouse (chdb) of one data folder and runs what the
// server sends over IPC (src/sql-engine/protocol.ts). A process, not a worker thread: chdb 3.4 crashes the whole
// process (SIGSEGV) when a worker thread that loaded it ends, and at any exit of a process holding such a worker.
// Plain JavaScript because the file is started by path, both from the sources (tests, tsx) and from the
// published package (dist/ bundles the rest): no build step for it.
//
// Connections (chdb allows one data folder per process, and any number of connections to it, each with its own
// settings, running in parallel):
//   admin    DDL and loads, one at a time (a queue): the mirror's writes;
//   control  KILL QUERY only, so that a cancellation never waits behind a running query or load;
//   one fresh connection per read query, its limits set and then `readonly = 1`, closed after the query: a
//   readonly connection cannot change its settings again, and chdb keeps a failed query's output in the
//   connection's buffer (it would be prefixed to the next answer).
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
/** @type {{ folder: string, chdbModule: string }} */
const { folder, chdbModule } = JSON.parse(process.argv[2] ?? "{}");
/** @param {import("./protocol.ts").EngineMessage} msg */
const post = (msg) => process.send?.(msg);
// The server went away (exit, crash, kill): nothing is left to answer.
process.on("disconnect", () => process.exit(0));

/** @param {unknown} value */
const literal = (value) => (typeof value === "number" ? String(value) : `'${String(value).replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`);

/** @param {any} e */
const errorOf = (e) => ({ message: String(e?.message ?? e), code: typeof e?.clickhouseCode === "number" ? e.clickhouseCode : codeIn(String(e?.message ?? "")) });
/** @param {string} message */
const codeIn = (message) => {
  const m = /^Code: (\d+)\./.exec(message);
  return m ? Number(m[1]) : null;
};

/** @param {any} result */
function parseCompact(result) {
  const text = result.text();
  if (text === "") return { columns: [], types: [], rows: [], rowsRead: result.rowsRead ?? 0, bytesRead: result.bytesRead ?? 0 };
  const doc = JSON.parse(text);
  return {
    columns: doc.meta.map((/** @type {any} */ m) => m.name),
    types: doc.meta.map((/** @type {any} */ m) => m.type),
    rows: doc.data,
    rowsRead: result.rowsRead ?? 0,
    bytesRead: result.bytesRead ?? 0,
  };
}

function start() {
  let chdb;
  try {
    chdb = require(chdbModule);
  } catch (e) {
    const cause = String(/** @type {any} */ (e)?.message ?? e).split("\n")[0];
    process.send?.({ type: "unavailable", cause }, () => process.exit(0));
    return;
  }
  const { Session } = chdb;
  const admin = new Session(folder);
  const control = new Session(folder);
  let adminQueue = Promise.resolve();
  post({ type: "ready", version: String(admin.query("SELECT version()", "TSV")).trim() });

  /** @param {import("./protocol.ts").EngineRequest} msg */
  async function handle(msg) {
    switch (msg.type) {
      case "query": {
        const conn = new Session(folder);
        try {
          const settings = Object.entries(msg.settings).map(([k, v]) => `${k} = ${literal(v)}`);
          await conn.queryAsync(`SET ${settings.join(", ")}`);
          const result = msg.params ? await conn.queryBindAsync(msg.sql, msg.params, { format: "JSONCompact" }) : await conn.queryAsync(msg.sql, { format: "JSONCompact" });
          return parseCompact(result);
        } finally {
          conn.close();
        }
      }
      case "admin": {
        const run = adminQueue.then(() => admin.queryAsync(msg.sql, { format: "JSONCompact" }));
        adminQueue = run.then(
          () => undefined,
          () => undefined,
        );
        return parseCompact(await run);
      }
      case "kill": {
        await control.queryAsync(`KILL QUERY WHERE Settings['log_comment'] = ${literal(msg.tag)} ASYNC`);
        return { columns: [], types: [], rows: [], rowsRead: 0, bytesRead: 0 };
      }
      case "close": {
        await adminQueue;
        control.close();
        admin.close();
        return { columns: [], types: [], rows: [], rowsRead: 0, bytesRead: 0 };
      }
    }
  }

  process.on("message", (/** @type {import("./protocol.ts").EngineRequest} */ msg) => {
    handle(msg).then(
      (result) => post({ type: "reply", id: msg.id, ok: true, result }),
      (e) => post({ type: "reply", id: msg.id, ok: false, error: errorOf(e) }),
    );
  });
}

start();
