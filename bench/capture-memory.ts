/**
 * Memory a captured event holds at rest (issue 38): `npx tsx bench/capture-memory.ts [N]` (not part of
 * `npm test`). Starts the app in a child process of its own (node --expose-gc) on the bundled scenario, sends N
 * events (default 200,000) through `POST /batch/` in posthog-node-shaped batches of 100, has the child collect
 * garbage twice and prints what grew, per event: the JavaScript heap, memory outside it (the column store's
 * buffers) and the child's RSS (which also holds pages V8 has not given back). Then the sizes of the control
 * API's bounded logs, whose bodies are part of what grew.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { derivedProjectToken } from "../src/util/ids.ts";
import { scenario, startTestServer } from "../test/support/server.ts";

const EVENTS = Number(process.argv[2] ?? 200_000);
const BATCH = 100;
interface Settled { heap: number; outside: number; rss: number }

/** In the child: the server, and its memory after two collections whenever the parent asks. */
async function serve(): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc!;
  const server = await startTestServer(scenario("basic"), { logLevel: "silent" });
  process.on("message", async (message) => {
    if (message === "stop") return void (await server.close(), process.disconnect());
    collect();
    collect();
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
  const child = fork(fileURLToPath(import.meta.url), ["--serve"], { execArgv: ["--expose-gc", "--import", "tsx"] });
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
