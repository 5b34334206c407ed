/**
 * Memory a captured event holds at rest (issue 38): `npx tsx bench/capture-memory.ts [N]` (not part of
 * `npm test`). Starts the app in a child process of its own on the bundled scenario, sends N events (default
 * 200,000) through `POST /batch/` in posthog-node-shaped batches of 100, lets the server rest as a user's would
 * (AT_REST_MS without a request, no collection forced from outside: the server's own quiet collection runs in
 * that time, src/util/quiet-collector.ts) and prints what grew, per event: the JavaScript heap, memory outside it
 * (the column store's buffers) and the child's RSS. Then the sizes of the control API's bounded logs, whose
 * bodies are part of what grew.
 *
 * Measured on 2 cores (200,000 events, RSS per event at rest): 1,168 B without the quiet collection (V8 keeps
 * the burst's garbage and pages while idle: old space 183 MiB committed for 41 MiB live); with one full
 * collection 92–801 B; with two 58–325 B (the second frees what the first one's sweep left, and sometimes
 * shrinks the young generation's 32 MiB). The two collections hold the event loop 76–107 ms with 1 M events
 * stored and 284–397 ms with 10 M (generated dataset, heap 53 and 190 MiB), once per burst after 5 s of quiet.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { derivedProjectToken } from "../src/util/ids.ts";
import { scenario, startTestServer } from "../test/support/server.ts";

const EVENTS = Number(process.argv[2] ?? 200_000);
const BATCH = 100;
/** Longer than the server's quiet collection waits (5 s), as a person glancing at `ps` would. */
const AT_REST_MS = 10_000;
interface Settled { heap: number; outside: number; rss: number }

/** In the child: the server, and its memory after AT_REST_MS without requests whenever the parent asks. */
async function serve(): Promise<void> {
  const server = await startTestServer(scenario("basic"), { logLevel: "silent" });
  process.on("message", async (message) => {
    // The server's workers and engine would keep the child alive after close: it ends itself.
    if (message === "stop") return void (await server.close(), process.exit(0));
    await new Promise((resolve) => setTimeout(resolve, AT_REST_MS));
    const m = process.memoryUsage();
    process.send!({ heap: m.heapUsed, outside: m.external, rss: m.rss } satisfies Settled);
  });
  process.send!({ base: server.base });
}

function batchBody(n: number, token: string): string {
  const sentAt = new Date().toISOString();
  const batch = Array.from({ length: BATCH }, (_, i) => {
    const k = n * BATCH + i;
    return {
      event: i % 10 === 0 ? "$pageview" : "bench event",
      distinct_id: `bench-${k % 1000}`,
      uuid: `0190bbbb-0000-7000-8000-${k.toString(16).padStart(12, "0")}`,
      timestamp: sentAt,
      properties: { $lib: "posthog-node", i, plan: i % 3 ? "free" : "pro", $set: { last_batch: n } },
    };
  });
  return JSON.stringify({ api_key: token, sent_at: sentAt, batch });
}

async function measure(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: ["--import", "tsx"] });
  const next = <T>() => new Promise<T>((resolve) => child.once("message", (m) => resolve(m as T)));
  const { base } = await next<{ base: string }>();
  const settled = () => (child.send("settle"), next<Settled>());
  const before = await settled();
  const token = derivedProjectToken("1");
  for (let n = 0; n < EVENTS / BATCH; n++) {
    const res = await fetch(`${base}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: batchBody(n, token) });
    if (res.status !== 200) throw new Error(`batch ${n}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
  const after = await settled();
  const perEvent = (key: keyof Settled) => Math.round((after[key] - before[key]) / EVENTS);
  console.log(`${EVENTS.toLocaleString("en-US")} events at rest: heap ${perEvent("heap")} B/event, outside the heap ${perEvent("outside")} B/event, RSS ${perEvent("rss")} B/event`);
  for (const path of ["/_mock/requests/?limit=1000", "/_mock/captured/?limit=1000", "/_mock/captured/events/?limit=10000"]) {
    const text = await (await fetch(base + path)).text();
    console.log(`  ${path}: ${(text.length / 2 ** 20).toFixed(1)} MiB of JSON`);
  }
  child.send("stop");
}

await (process.argv.includes("--serve") ? serve() : measure());
