import { mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BASIC_FIXTURE, runToExit, startChild, type ChildServer } from "../support/child-server.ts";
import { assertConforms } from "../support/contract.ts";

/**
 * The SQL engine (chdb in a child process of the server) dies or is left behind, and the server goes on (issue 38):
 * an engine killed while a query runs costs that query a 503, never the server; a server killed (SIGKILL) takes
 * its engine with it, so its restart answers SQL at once; a mirror folder replaced by a file is one line.
 */
let child: ChildServer | undefined;
afterEach(async () => {
  await child?.kill();
  child = undefined;
});

const KEY = "phx_test_owner_key_0001";
const QUERY = "/api/projects/1/query/";
/**
 * Minutes of ClickHouse work inside single blocks: a regex compiled per row (~1.5 ms: a 300-way alternation), over
 * 10^6 rows an event (two joins of 10^3: ClickHouse refuses a constant array past 10^6 elements, at times).
 */
const ENDLESS_HOGQL =
  "select count() from (select arrayJoin(range(1000)) as a, arrayJoin(range(1000)) as b from events) where match('abc', concat('(', arrayStringConcat(arrayMap(i -> toString(a * 1000 + b + i), range(300)), '|'), ')+z'))";

async function call(server: ChildServer, method: "GET" | "POST", p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = { status: res.status, body: await res.json() };
  await assertConforms({ method, path: p, status: answer.status, contentType: res.headers.get("content-type"), body: answer.body });
  return answer;
}

const hogql = (server: ChildServer, query: string) => call(server, "POST", QUERY, { query: { kind: "HogQLQuery", query } });

let asked = 0;
/** basic.json holds 11 events of project 1. */
async function expectSqlCount(server: ChildServer): Promise<void> {
  // A new text each time: an answer remembered from before would not reach the engine.
  const r = await hogql(server, `select count() from events where ${++asked} > 0`);
  expect(r.status).toBe(200);
  expect(r.body.results).toEqual([[11]]);
}

/** The server's engine process (a child running engine-process.mjs), once it runs. */
async function engineOf(server: ChildServer): Promise<number> {
  for (const until = Date.now() + 30_000; Date.now() < until; await new Promise((r) => setTimeout(r, 25))) {
    const engine = childrenOf(server.pid).find((pid) => commandOf(pid).includes("engine-process.mjs"));
    if (engine !== undefined) return engine;
  }
  throw new Error(`no engine process started: children ${childrenOf(server.pid).map((pid) => `${pid} ${commandOf(pid)}`).join(", ")}`);
}

function childrenOf(parent: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((pid) => {
      try {
        // "pid (comm) state ppid …": the command may hold spaces, the fields after its ")" do not.
        return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[1]) === parent;
      } catch {
        return false;
      }
    });
}

const commandOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8");
  } catch {
    return "";
  }
};

async function gone(pid: number, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 25))) if (commandOf(pid) === "") return true;
  return commandOf(pid) === "";
}

const dataFile = () => path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-sql-recovery-")), "db.json");

describe("the SQL engine dies, the server goes on (issue 38)", () => {
  it("an engine killed while a query runs: that query is a 503, the REST API answers at once, and the next SQL query is exact", { timeout: 180_000 }, async () => {
    child = await startChild(["--data", dataFile(), "--fixtures", BASIC_FIXTURE]);
    await expectSqlCount(child);
    const engine = await engineOf(child);
    const running = hogql(child, ENDLESS_HOGQL);
    // The query reaches ClickHouse within milliseconds and runs for minutes: killed before or while it runs, the
    // answer must be the same.
    await new Promise((r) => setTimeout(r, 300));
    process.kill(engine, "SIGKILL");
    const answer = await running;
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ type: "server_error", code: "sql_engine_unavailable", attr: null });
    expect((await call(child, "GET", "/api/projects/1/insights/?limit=1")).status).toBe(200);
    await expectSqlCount(child);
    expect(await engineOf(child)).not.toBe(engine);
    expect(child.child.exitCode).toBe(null);
  });

  it("a query stuck inside one block ends at its time limit with a 400 timeout_exceeded, and SQL answers after", { timeout: 180_000 }, async () => {
    child = await startChild(["--data", dataFile(), "--fixtures", BASIC_FIXTURE, "--sql-time-limit", "2000"]);
    const answer = await hogql(child, ENDLESS_HOGQL);
    expect(answer.status).toBe(400);
    expect(answer.body, answer.body.detail).toMatchObject({ type: "validation_error", code: "timeout_exceeded", attr: "query__query" });
    await expectSqlCount(child);
  });

  it("a server killed (SIGKILL) with SQL running leaves no engine behind; its restart answers SQL", { timeout: 180_000 }, async () => {
    const data = dataFile();
    child = await startChild(["--data", data, "--fixtures", BASIC_FIXTURE]);
    await expectSqlCount(child);
    const engine = await engineOf(child);
    hogql(child, ENDLESS_HOGQL).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 300));
    await child.kill();
    expect(await gone(engine, 5_000)).toBe(true);
    child = await startChild(["--data", data]);
    await expectSqlCount(child);
  });

  it("a mirror folder replaced by a file: SQL answers a 503 naming it in one line, and a start-up refuses it in one line", { timeout: 180_000 }, async () => {
    const data = dataFile();
    const folder = data.replace(/\.json$/, ".clickhouse");
    child = await startChild(["--data", data, "--fixtures", BASIC_FIXTURE]);
    await expectSqlCount(child);
    renameSync(folder, `${folder}.moved`);
    writeFileSync(folder, "not a folder");
    const answer = await hogql(child, "select count() from events where 1 = 1");
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({ type: "server_error", code: "sql_engine_unavailable", attr: null, detail: `The SQL engine's folder ${folder} is not a folder: move it away, and the mirror is made again from the data.` });
    expect((await call(child, "GET", "/api/projects/1/insights/?limit=1")).status).toBe(200);
    await child.kill();
    child = undefined;
    const refused = await runToExit(["--data", data, "--fixtures", BASIC_FIXTURE]);
    expect(refused.code).toBe(1);
    expect(refused.output.trim()).toBe(`analytics-mock could not start: The SQL engine's folder ${folder} is not a folder: move it away, and the mirror is made again from the data. (run with --log-level debug for the stack trace)`);
  });
});
