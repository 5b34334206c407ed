import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, writeFileSync, writeSync } from "node:fs";
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { identityOf, readColumnSnapshot, writeColumnSnapshot } from "../../../src/store/column-snapshot.ts";
import { EventStore } from "../../../src/store/event-store.ts";
import { headerLine } from "../../../src/store/events-file.ts";
import { NdjsonFile } from "../../../src/store/ndjson-file.ts";
import type { EventRecord } from "../../../src/store/schema.ts";

const T0 = Date.parse("2024-03-01T00:00:00Z");

const event = (n: number, project = "1"): EventRecord => ({
  uuid: n === 3 ? "odd-uuid-3" : `0190a1b2-c3d4-7e5f-8a9b-${String(n).padStart(12, "0")}`,
  project_id: project,
  event: n % 2 ? "$pageview" : "signed_up",
  distinct_id: `user-${n % 3}`,
  timestamp: T0 + n * 1000,
  properties: n % 2 ? { $browser: "Chrome", n, $groups: { company: "acme" } } : { plan: null, ok: true },
  elements_chain: n === 4 ? "button:nth-child=1" : "",
});

/** An events file and its column snapshot, written as the store writes them. */
async function written(records: EventRecord[]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "column-snapshot-"));
  const files = { events: path.join(dir, "db.events.ndjson"), columns: path.join(dir, "db.events.columns") };
  const store = EventStore.from(records);
  const header = { epoch: store.log.epoch, base: store.log.seq };
  const identity = await new NdjsonFile<EventRecord>(files.events).write(store.share(), (sha1) => identityOf(files.events, sha1), headerLine(header));
  await writeColumnSnapshot(files.columns, store.share(), identity, header);
  return { ...files, header };
}

const plain = (store: EventStore) => store.toArray().sort((a, b) => a.timestamp - b.timestamp || a.uuid.localeCompare(b.uuid));

describe("the column snapshot beside the events file", () => {
  it("gives back the very events the file holds, up to the file's last byte", async () => {
    const records = [1, 2, 3, 4, 5].map((n) => event(n)).concat([event(6, "2")]);
    const files = await written(records);
    const read = (await readColumnSnapshot(files.columns, files.events))!;
    expect(read.endsAt).toBe(readFileSync(files.events).length);
    expect(plain(read.events)).toEqual(records);
    expect(read.log).toEqual(files.header);
  });

  it("still describes the file after lines are appended, and says where they start", async () => {
    const files = await written([event(1), event(2)]);
    const before = readFileSync(files.events).length;
    appendFileSync(files.events, JSON.stringify(event(9)) + "\n");
    const read = (await readColumnSnapshot(files.columns, files.events))!;
    expect(read.endsAt).toBe(before);
    expect(read.events.length).toBe(2);
  });

  it("is ignored once the file was rewritten, truncated or changed in place", async () => {
    const rewritten = await written([event(1), event(2)]);
    await new NdjsonFile<EventRecord>(rewritten.events).write([event(1)]);
    expect(await readColumnSnapshot(rewritten.columns, rewritten.events)).toBeNull();

    const changed = await written([event(1), event(2)]);
    const text = readFileSync(changed.events, "utf8");
    writeFileSync(changed.events, text.replace("user-1", "user-7"));
    expect(await readColumnSnapshot(changed.columns, changed.events)).toBeNull();
  });

  it("is ignored after a same-length edit in place far from the file's end (every covered byte is checked)", async () => {
    // ~2,000 lines: the edited line sits hundreds of KiB before the end, where a tail check would not look.
    const records = Array.from({ length: 2_000 }, (_, n) => event(n + 10));
    const files = await written(records);
    const text = readFileSync(files.events, "latin1");
    const at = text.indexOf('"event":"$pageview"');
    expect(at).toBeGreaterThan(-1);
    expect(text.length - at).toBeGreaterThan(256 * 1024);
    const fd = openSync(files.events, "r+");
    writeSync(fd, Buffer.from('"event":"$pageviex"'), 0, 19, at);
    closeSync(fd);
    expect(await readColumnSnapshot(files.columns, files.events)).toBeNull();
    // Parsing the file instead gives the edited name.
    const parsed: EventRecord[] = [];
    await new NdjsonFile<EventRecord>(files.events).readEach((e) => parsed.push(e));
    expect(parsed.filter((e) => e.event === "$pageviex")).toHaveLength(1);
  });

  it("records the SHA-1 the writer computed while writing, equal to the file's", async () => {
    const files = await written([1, 2, 3].map((n) => event(n)));
    const sha1 = await new NdjsonFile<EventRecord>(files.events).write([event(1), event(2)], (digest) => digest);
    expect(sha1).toBe(createHash("sha1").update(readFileSync(files.events)).digest("hex"));
  });

  it("a truncated or foreign snapshot file is ignored, never half-read", async () => {
    const files = await written([1, 2, 3, 4].map((n) => event(n)));
    const bytes = readFileSync(files.columns);
    writeFileSync(files.columns, bytes.subarray(0, bytes.length - 10));
    expect(await readColumnSnapshot(files.columns, files.events)).toBeNull();
    writeFileSync(files.columns, "not a snapshot");
    expect(await readColumnSnapshot(files.columns, files.events)).toBeNull();
    expect(await readColumnSnapshot(files.columns + ".missing", files.events)).toBeNull();
  });
});
