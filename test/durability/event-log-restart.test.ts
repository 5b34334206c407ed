import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultApiKey } from "../../src/fixtures/users.ts";
import { derivedProjectToken } from "../../src/util/ids.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { startChild, type ChildServer } from "../support/child-server.ts";
import { callServer } from "../support/server.ts";

/**
 * A generated store captured into through `/batch/` (a third of the events late, days to weeks before the newest
 * stored one) while HogQL queries run, then stopped and started again, and later killed: every start must answer
 * at once with every acknowledged event, and the three doors (the REST trend, HogQL's count() and
 * uniqExact(uuid)) must give the acknowledged number. Before the events' log, such a start never listened (each
 * late event copied the whole table while the file was read back) and HogQL saw some events twice.
 */
const NOW = "2026-03-15T12:00:00Z";
const KEY = defaultApiKey(42);
const TOKEN = derivedProjectToken("1");
const BATCH = 200;
const DAY = 86_400_000;

let child: ChildServer | undefined;
afterEach(async () => {
  await child?.kill();
  child = undefined;
});

/** A seeded batch of `BATCH` events marked `marker`, every third one late, from 50 distinct ids new to the store. */
function batchOf(n: number, marker: string): object[] {
  return Array.from({ length: BATCH }, (_, i) => {
    const late = i % 3 === 0;
    const at = Date.parse(NOW) - (late ? (2 + ((n * 7 + i) % 40)) * DAY : 60_000 - i * 10);
    return {
      event: "log_marker",
      distinct_id: `log-new-${(n * 13 + i) % 50}`,
      uuid: `0190dddd-${String(n).padStart(4, "0")}-7000-8000-${String(i).padStart(12, "0")}`,
      timestamp: new Date(at).toISOString(),
      properties: { marker },
    };
  });
}

async function capture(server: ChildServer, batches: number, from: number, marker: string): Promise<number> {
  const queries: Promise<unknown>[] = [];
  let acknowledged = 0;
  for (let n = from; n < from + batches; n++) {
    const res = await captureRequest(server.url, "POST", "/batch/", { body: JSON.stringify({ api_key: TOKEN, batch: batchOf(n, marker) }), headers: { "content-type": "application/json" } });
    expect(res.status).toBe(200);
    acknowledged += BATCH;
    // SQL meanwhile: each query brings the mirror up to the store while the next batches arrive.
    if (n % 4 === 0) queries.push(hogqlCounts(server, marker));
  }
  await Promise.all(queries);
  return acknowledged;
}

async function hogqlCounts(server: ChildServer, marker: string): Promise<[number, number]> {
  const res = await callServer(server.url, "POST", "/api/projects/1/query/", { query: { kind: "HogQLQuery", query: `SELECT count(), uniqExact(uuid) FROM events WHERE properties.marker = '${marker}'` } }, KEY);
  expect(res.status).toBe(200);
  const [count, distinct] = res.body.results[0] as [number, number];
  return [Number(count), Number(distinct)];
}

async function trendTotal(server: ChildServer, marker: string): Promise<number> {
  const res = await callServer(server.url, "POST", "/api/projects/1/insights/trend/", { events: [{ id: "log_marker", type: "events" }], properties: [{ key: "marker", value: marker, operator: "exact", type: "event" }], date_from: "-60d", interval: "day" }, KEY);
  expect(res.status).toBe(200);
  return res.body.result[0].count as number;
}

/** Every door's number for `marker`: the trend's total, HogQL's count() and uniqExact(uuid). */
async function doors(server: ChildServer, marker: string): Promise<number[]> {
  return [await trendTotal(server, marker), ...(await hogqlCounts(server, marker))];
}

async function timedStart(data: string): Promise<{ server: ChildServer; ms: number }> {
  const started = performance.now();
  const server = await startChild(["--data", data, "--now", NOW]);
  return { server, ms: performance.now() - started };
}

describe("the events' log across restarts", () => {
  it("answers after late captures, a stop and a kill, with every acknowledged event through every door", { timeout: 300_000 }, async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-event-log-")), "db.json");
    child = await startChild(["--data", data, "--events", "20000", "--persons", "300", "--now", NOW]);
    const first = await capture(child, 30, 0, "storm1");
    expect(await doors(child, "storm1")).toEqual([first, first, first]);

    child.child.kill("SIGTERM");
    await child.exited;
    const stopped = await timedStart(data);
    child = stopped.server;
    expect(stopped.ms).toBeLessThan(30_000);
    expect(child.rssKiB()).toBeLessThan(1_500_000);
    expect(await doors(child, "storm1")).toEqual([first, first, first]);

    const second = await capture(child, 12, 30, "storm2");
    await child.kill();
    const killed = await timedStart(data);
    child = killed.server;
    expect(killed.ms).toBeLessThan(30_000);
    expect(await doors(child, "storm1")).toEqual([first, first, first]);
    expect(await doors(child, "storm2")).toEqual([second, second, second]);
    console.info(`event log: ${first + second} captured events (a third late); start after SIGTERM ${Math.round(stopped.ms)} ms, after SIGKILL ${Math.round(killed.ms)} ms`);
  });
});
