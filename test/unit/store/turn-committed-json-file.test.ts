import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { JSONFileSync } from "lowdb/node";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TurnCommittedJsonFile } from "../../../src/store/turn-committed-json-file.ts";

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempFile(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "turn-commit-"));
  dirs.push(dir);
  return path.join(dir, "db.json");
}

describe("TurnCommittedJsonFile", () => {
  it("serves every write of one turn with one write of the latest data, answering each caller after it", async () => {
    const file = tempFile();
    const adapter = new TurnCommittedJsonFile<{ n: number }>(file);
    const writes = vi.spyOn(JSONFileSync.prototype, "write");
    const done: number[] = [];
    const all = [1, 2, 3, 4, 5].map((n) => adapter.write({ n }).then(() => done.push(n)));
    await Promise.resolve();
    expect(done).toEqual([]);
    await Promise.all(all);
    expect(done).toEqual([1, 2, 3, 4, 5]);
    expect(writes).toHaveBeenCalledTimes(1);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ n: 5 });

    await adapter.write({ n: 6 });
    expect(writes).toHaveBeenCalledTimes(2);
    expect(await adapter.read()).toEqual({ n: 6 });
  });

  it("rejects every caller of a turn whose write fails, and writes again on the next turn", async () => {
    const file = tempFile();
    writeFileSync(file, JSON.stringify({ n: 0 }));
    const adapter = new TurnCommittedJsonFile<{ n: number }>(path.join(file, "not-a-directory", "db.json"));
    const results = await Promise.allSettled([adapter.write({ n: 1 }), adapter.write({ n: 2 })]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);

    const good = new TurnCommittedJsonFile<{ n: number }>(file);
    await good.write({ n: 3 });
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ n: 3 });
  });
});
