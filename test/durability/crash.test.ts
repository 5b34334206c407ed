import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readState, storeFiles } from "../../src/store/persistence.ts";
import { BASIC_FIXTURE, launchChild, startChild, type ChildServer } from "../support/child-server.ts";
import { missingWrites, prng, send, stateOverHttp, stormUntilKilled, writeOf, type Write } from "../support/write-storm.ts";

/**
 * A server process under a write storm is killed with SIGKILL at seeded moments (after a seeded number of
 * acknowledged writes, while 16 more are in flight); every restart must load the store and hold every
 * write acknowledged before any kill.
 */
const SEED = 8_2024;
const ROUNDS = 6;
const WORKERS = 16;

let child: ChildServer | undefined;
afterEach(async () => {
  await child?.kill();
  child = undefined;
});

/** Writes until the server dies; kills it once `killAfter` writes were acknowledged. */
const storm = (server: ChildServer, tag: string, killAfter: number, acked: Write[]): Promise<number> =>
  stormUntilKilled(server, { workers: WORKERS, killAfter, write: (n) => writeOf(tag, n), record: (w) => w, deliver: send }, acked);

describe("crash safety", () => {
  it(`survives ${ROUNDS} SIGKILLs under a write storm with every acknowledged write`, { timeout: 600_000 }, async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-crash-")), "db.json");
    const random = prng(SEED);
    const acked: Write[] = [];
    child = await startChild(["--data", data, "--fixtures", BASIC_FIXTURE]);
    for (let round = 0; round < ROUNDS; round++) {
      const killAfter = 20 + Math.floor(random() * 400);
      const done = await storm(child, `r${round}`, killAfter, acked);
      // Answers already on their way when the signal lands are acknowledgements too, and checked as such.
      expect(done).toBeGreaterThanOrEqual(killAfter);
      expect((await child.exited).signal).toBe("SIGKILL");
      child = await startChild(["--data", data]);
      expect(child.output()).toContain("(data-file)");
      expect(missingWrites(await stateOverHttp(child.url), acked)).toEqual([]);
    }
    const onDisk = (await readState(storeFiles(data)))!;
    expect(missingWrites(onDisk, acked)).toEqual([]);
    console.info(`crash: ${ROUNDS} kills survived, ${acked.length} acknowledged writes checked`);
  });

  it("a first start killed while it writes the generated store starts again instead of refusing a half store", { timeout: 300_000 }, async () => {
    const data = path.join(mkdtempSync(path.join(tmpdir(), "analytics-mock-first-start-")), "db.json");
    const files = storeFiles(data);
    const size = ["--persons", "2000", "--events", "300000", "--now", "2024-03-05T12:00:00Z"];
    const first = launchChild(["--data", data, ...size]);
    first.ready.catch(() => undefined);
    // Killed as soon as the first store file appears: the events file (300,000 lines) is still being written.
    while (![files.meta, files.persons, files.activity].some((f) => existsSync(f))) await new Promise((r) => setTimeout(r, 2));
    first.child.kill("SIGKILL");
    await new Promise((resolve) => (first.child.exitCode !== null || first.child.signalCode !== null ? resolve(null) : first.child.once("exit", resolve)));
    child = await startChild(["--data", data, ...size]);
    const res = await fetch(`${child.url}/api/projects/`, { headers: { authorization: "Bearer x" } });
    expect(res.status).toBe(401);
  });
});
