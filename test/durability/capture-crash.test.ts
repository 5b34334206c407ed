import http from "node:http";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readState, storeFiles } from "../../src/store/persistence.ts";
import { derivedProjectToken } from "../../src/util/ids.ts";
import { BASIC_FIXTURE, startChild, type ChildServer } from "../support/child-server.ts";
import { rawRequest } from "../support/hostile-http.ts";
import { prng, stormUntilKilled } from "../support/write-storm.ts";

/**
 * A server process under a capture storm (posthog-node-shaped `/batch/` requests of 10 events, a new person
 * and an identify in each) is killed with SIGKILL at seeded moments; every restart must load the store, and
 * the events file must hold every event of every acknowledged batch, each with its person.
 */
const SEED = 15_2024;
const ROUNDS = 4;
const WORKERS = 10;
const EVENTS_PER_BATCH = 10;
const TOKEN = derivedProjectToken("1");

let child: ChildServer | undefined;
afterEach(async () => {
  await child?.kill();
  child = undefined;
});

const uuidOf = (round: number, batch: number, i: number) =>
  `0190aaaa-${String(round).padStart(4, "0")}-7000-8000-${String(batch * EVENTS_PER_BATCH + i).padStart(12, "0")}`;

interface Batch {
  uuids: string[];
  distinctIds: string[];
}

function batchOf(round: number, n: number): { body: string; batch: Batch } {
  const anon = `anon-${round}-${n}`;
  const user = `user-${round}-${n}`;
  const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => ({
    uuid: uuidOf(round, n, i),
    event: i === 5 ? "$identify" : "storm",
    distinct_id: i < 5 ? anon : user,
    timestamp: new Date(Date.UTC(2024, 2, 5, 11) + i * 1000).toISOString(),
    properties: i === 5 ? { $anon_distinct_id: anon, $set: { round } } : { i },
  }));
  return { body: JSON.stringify({ api_key: TOKEN, sent_at: "2024-03-05T11:00:10.000Z", batch: events }), batch: { uuids: events.map((e) => e.uuid), distinctIds: [anon, user] } };
}

async function send(base: string, body: string, agent: http.Agent): Promise<boolean> {
  try {
    const res = await rawRequest(base, { method: "POST", path: "/batch/", headers: { "content-type": "application/json" }, body, agent }, 60_000);
    if (res.status !== 200) throw new Error(`capture answered ${res.status}: ${res.text.slice(0, 200)}`);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ECONNRESET" || code === "ECONNREFUSED" || /socket hang up/.test((e as Error).message)) return false;
    throw e;
  }
}

/** Sends batches until the server dies; kills it once `killAfter` batches were acknowledged. */
const storm = (server: ChildServer, round: number, killAfter: number, acked: Batch[]): Promise<number> =>
  stormUntilKilled(server, { workers: WORKERS, killAfter, write: (n) => batchOf(round, n), record: (b) => b.batch, deliver: (url, b, agent) => send(url, b.body, agent) }, acked);

describe("capture crash safety", () => {
  it(`survives ${ROUNDS} SIGKILLs under a capture storm with every acknowledged event`, { timeout: 600_000 }, async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-capture-crash-")), "db.json");
    const files = storeFiles(data);
    const random = prng(SEED);
    const acked: Batch[] = [];
    child = await startChild(["--data", data, "--fixtures", BASIC_FIXTURE]);
    const eventsFileAtStart = readFileSync(files.events, "utf8");
    for (let round = 0; round < ROUNDS; round++) {
      const killAfter = 10 + Math.floor(random() * 150);
      expect(await storm(child, round, killAfter, acked)).toBeGreaterThanOrEqual(killAfter);
      child = await startChild(["--data", data]);
      expect(child.output()).toContain("(data-file)");
      const state = (await readState(files))!;
      const stored = new Set([...state.events].map((e) => e.uuid));
      expect(acked.flatMap((b) => b.uuids).filter((u) => !stored.has(u))).toEqual([]);
      const mapped = new Map(state.persons.flatMap((p) => p.distinct_ids.map((d) => [d, p.id] as const)));
      // Both ids of each acknowledged batch belong to one (merged) person.
      expect(acked.filter((b) => mapped.get(b.distinctIds[0]!) === undefined || mapped.get(b.distinctIds[0]!) !== mapped.get(b.distinctIds[1]!))).toEqual([]);
    }
    // Appended, never rewritten: the file still starts with what the first start wrote.
    expect(readFileSync(files.events, "utf8").startsWith(eventsFileAtStart)).toBe(true);
    const events = acked.length * EVENTS_PER_BATCH;
    console.info(`capture crash: ${ROUNDS} kills survived, ${acked.length} acknowledged batches (${events} events) checked`);
  });
});
