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
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const require = createRequire(import.meta.url);
/** @type {{ folder: string, chdbModule: string, connectionArgs?: string[] }} */
const { folder, chdbModule, connectionArgs = [] } = JSON.parse(process.argv[2] ?? "{}");
/** @param {import("./protocol.ts").EngineMessage} msg */
const post = (msg) => process.send?.(msg);

// The server went away (exit, crash, SIGKILL): nothing is left to answer, so the process ends at once. A clean
// exit waits for ClickHouse's threads (a running query, a load) and held the folder for the length of the query,
// past the server's restart; only after a `close` with no read running is there nothing to wait for.
let closedCleanly = false;
let readsRunning = 0;
const die = () => (closedCleanly ? process.exit(0) : process.kill(process.pid, "SIGKILL"));
process.on("disconnect", die);
// The channel's end is not seen while the process is busy elsewhere: a parent that changed means the server died.
const server = process.ppid;
setInterval(() => process.ppid !== server && die(), 250).unref();

/** Where the engine holding the folder writes its pid and its server's: how a later engine finds a stale one. */
const OWNER_FILE = path.join(folder ?? ".", "engine.pid");
/** How long a stale engine, sent SIGKILL, may take to go before the folder is opened anyway. */
const TAKE_OVER_MS = 1_000;

/** @param {number} pid */
function isEngineProcess(pid) {
  try {
    // Of this folder (a pid used again may be another folder's engine, or anything); a zombie's command line is
    // empty. Read from /proc on Linux, from `ps` on macOS.
    const command = process.platform === "linux" ? readFileSync(`/proc/${pid}/cmdline`, "utf8") : execFileSync("ps", ["-p", String(pid), "-o", "command="], { encoding: "utf8" });
    return command.includes("engine-process.mjs") && command.includes(JSON.stringify(folder));
  } catch {
    return false;
  }
}

/**
 * True until a killed process has let its files go: a dying process drops its memory (and its command line) before
 * its files and their locks, and becomes a zombie (state Z) only after both.
 * @param {number} pid
 */
function stillExiting(pid) {
  if (process.platform !== "linux") return isAlive(pid);
  try {
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** @param {number} pid */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return /** @type {any} */ (e)?.code === "EPERM";
  }
}

/**
 * Takes the folder over from the engine of an earlier start (a server that died, or this server's engine that was
 * killed): that engine is ended, as chdb allows one process per data folder. Another live server's engine is left
 * alone and the folder refused.
 * @returns {Promise<string | null>} why the folder cannot be used, or null
 */
async function takeOverFolder() {
  /** @type {{ engine?: unknown, server?: unknown } | null} */
  let owner = null;
  try {
    owner = JSON.parse(readFileSync(OWNER_FILE, "utf8"));
  } catch {}
  const stale = typeof owner?.engine === "number" && owner.engine !== process.pid ? owner.engine : null;
  if (stale !== null && isEngineProcess(stale)) {
    const theirServer = typeof owner?.server === "number" ? owner.server : null;
    if (theirServer !== null && theirServer !== server && isAlive(theirServer)) return `the folder ${folder} is used by the SQL engine of another running server (pid ${theirServer})`;
    process.kill(stale, "SIGKILL");
    for (const until = Date.now() + TAKE_OVER_MS; stillExiting(stale) && Date.now() < until; ) await sleep(10);
  }
  writeFileSync(OWNER_FILE, JSON.stringify({ engine: process.pid, server }));
  return null;
}

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

async function start() {
  let chdb;
  try {
    chdb = require(chdbModule);
  } catch (e) {
    const cause = String(/** @type {any} */ (e)?.message ?? e).split("\n")[0];
    process.send?.({ type: "unavailable", cause }, () => process.exit(0));
    return;
  }
  const refused = await takeOverFolder().catch((/** @type {any} */ e) => `the folder ${folder} cannot be used: ${e?.message ?? e}`);
  if (refused) {
    process.send?.({ type: "failed", cause: refused }, () => process.exit(0));
    return;
  }
  const { Session } = chdb;
  // The first session opens the engine: its server settings (memory cap) go with it.
  const admin = new Session(folder, { connectionArgs });
  const control = new Session(folder);
  let adminQueue = Promise.resolve();
  post({ type: "ready", version: String(admin.query("SELECT version()", "TSV")).trim() });

  /** @param {import("./protocol.ts").EngineRequest} msg */
  async function handle(msg) {
    switch (msg.type) {
      case "query": {
        const conn = new Session(folder);
        readsRunning++;
        try {
          const settings = Object.entries(msg.settings).map(([k, v]) => `${k} = ${literal(v)}`);
          await conn.queryAsync(`SET ${settings.join(", ")}`);
          const result = msg.params ? await conn.queryBindAsync(msg.sql, msg.params, { format: "JSONCompact" }) : await conn.queryAsync(msg.sql, { format: "JSONCompact" });
          return parseCompact(result);
        } finally {
          readsRunning--;
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
        closedCleanly = readsRunning === 0;
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

start().catch((e) => {
  process.send?.({ type: "failed", cause: String(e?.message ?? e).split("\n")[0] }, () => process.exit(0));
});
