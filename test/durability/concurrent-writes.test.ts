import http from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { startServer, type StartedServer } from "../../src/server.ts";
import { readState, storeFiles } from "../../src/store/persistence.ts";
import { BASIC_FIXTURE } from "../support/child-server.ts";
import { missingWrites, send, stateOverHttp, writeOf, type Write } from "../support/write-storm.ts";

const start = (argv: string[]) => startServer(parseConfig([...argv, "--port", "0", "--log-level", "silent"])!, createLogger("silent"));

let running: StartedServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe("1,000 concurrent writes over HTTP", () => {
  it("every acknowledged change is in memory, on disk before any flush, and after a restart", { timeout: 300_000 }, async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-concurrent-")), "db.json");
    running = await start(["--data", data, "--fixtures", BASIC_FIXTURE]);
    const files = storeFiles(data);
    const activityBefore = (await readState(files))!.activity.length;

    // Insights to PATCH, one each, so that every write of the burst commutes with the others.
    const targets: number[] = [];
    for (let i = 0; i < 250; i++) {
      const res = await fetch(`${running.url}/api/projects/1/insights/`, {
        method: "POST",
        headers: { authorization: "Bearer phx_test_owner_key_0001", "content-type": "application/json" },
        body: JSON.stringify({ name: `target-${i}` }),
      });
      targets.push(((await res.json()) as { id: number }).id);
    }
    const burst: Write[] = [
      ...targets.map((id, i): Write => ({ kind: "patch-insight", id, name: `patched-${i}` })),
      ...Array.from({ length: 750 }, (_, i) => writeOf("burst", i)),
    ];
    expect(burst).toHaveLength(1000);

    const agent = new http.Agent({ keepAlive: true, maxSockets: 1000 });
    const acked = await Promise.all(burst.map((w) => send(running!.url, w, agent)));
    agent.destroy();
    expect(acked.every(Boolean)).toBe(true);

    expect(missingWrites(await stateOverHttp(running.url), burst)).toEqual([]);
    const onDisk = (await readState(files))!;
    expect(missingWrites(onDisk, burst)).toEqual([]);
    // One activity entry per change: 250 creates, 250 creates of the burst, 250 insight PATCHes, 500 person edits.
    expect(onDisk.activity.length - activityBefore).toBe(250 + 250 + 250 + 500);
    expect(new Set(onDisk.activity.map((a) => a.id)).size).toBe(onDisk.activity.length);

    await running.close();
    running = await start(["--data", data]);
    expect(running.source).toBe("data-file");
    expect(missingWrites(await stateOverHttp(running.url), burst)).toEqual([]);
  });
});
