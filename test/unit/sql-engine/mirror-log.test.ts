import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createClock, type Clock } from "../../../src/core/clock.ts";
import type { MirrorOptions } from "../../../src/sql-engine/mirror.ts";
import { stageOf } from "../../../src/sql-engine/mirror/schema.ts";
import { createSqlDatabase, sqlFolderFor, type SqlDatabase, type SqlDatabaseOptions } from "../../../src/sql-engine/sql-database.ts";
import { stateFromFixtures } from "../../../src/store/load-fixtures.ts";
import { readState, storeFiles, type StoreFiles } from "../../../src/store/persistence.ts";
import type { EventRecord } from "../../../src/store/schema.ts";
import { createStore, type Store } from "../../../src/store/store.ts";
import { expectMirrorEqualsStore } from "../../support/mirror-contents.ts";
import { scenario } from "../../support/server.ts";

/**
 * The mirror follows the store's log by number (src/sql-engine/mirror.ts): whatever changes the store while a
 * load runs — late captures, deletions, merges, a dead engine, a dead server — the next query sees every event
 * exactly once. Each race is forced at a known point of a load through the mirror's `beforeLoad` hook, with loads
 * cut into files of a few events.
 */
const opened: SqlDatabase[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

const DAY = 86_400_000;
const BASIC_NOW = Date.parse(scenario("basic").now!);
const FILE_ROWS = 25;

function tempFolder(): string {
  const folder = mkdtempSync(path.join(tmpdir(), "mirror-log-"));
  folders.push(folder);
  return folder;
}

const clocks = new WeakMap<Store, Clock>();
async function basicStore(files: StoreFiles | null = null): Promise<Store> {
  const clock = createClock(BASIC_NOW);
  const store = await createStore(stateFromFixtures(scenario("basic"), clock.now()), clock, files, { persist: files !== null });
  clocks.set(store, clock);
  return store;
}

function databaseOver(store: Store, folder: string | null, mirror: MirrorOptions = {}, engine: SqlDatabaseOptions["engine"] = {}): SqlDatabase {
  const db = createSqlDatabase({ store, folder, mirror: { fileRows: FILE_ROWS, ...mirror }, engine });
  opened.push(db);
  return db;
}

/** `n` events with uuids of their own (`tag`), `spacing` ms apart from `at`, spread over three distinct ids. */
const batch = (tag: number, n: number, at: number, spacing = 60_000): EventRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    uuid: `0190eeee-${String(tag).padStart(4, "0")}-4000-8000-${String(i).padStart(12, "0")}`,
    project_id: "1",
    event: "logged",
    distinct_id: `log-user-${i % 3}`,
    timestamp: at + i * spacing,
    properties: { tag, i },
    elements_chain: "",
  }));

/** count() and uniqExact(uuid) of project 1 in the mirror, and the store's own count: all three must agree. */
async function counts(db: SqlDatabase, store: Store): Promise<{ count: number; distinct: number; stored: number }> {
  const r = await db.query("SELECT count(), uniqExact(uuid) FROM events WHERE team_id = 1");
  return { count: Number(r.rows[0]![0]), distinct: Number(r.rows[0]![1]), stored: store.analysisData.events("1").length };
}

async function expectExact(db: SqlDatabase, store: Store): Promise<void> {
  const c = await counts(db, store);
  expect(c).toEqual({ count: c.stored, distinct: c.stored, stored: c.stored });
  await expectMirrorEqualsStore(db, store);
}

/** A hook that runs `change` once, before the `nth` file loaded into `table`. */
function onceBefore(table: string, nth: number, change: () => Promise<unknown> | unknown): MirrorOptions["beforeLoad"] {
  let seen = 0;
  return async (load) => {
    if (load.table === table && ++seen === nth) await change();
  };
}

describe("the mirror follows the log while loads run", () => {
  it("takes events captured during a whole load, late or not, exactly once", async () => {
    const store = await basicStore();
    await store.events.append("1", batch(1, 200, BASIC_NOW - 20 * DAY));
    const db = databaseOver(store, null, {
      beforeLoad: onceBefore(stageOf("events"), 2, () =>
        Promise.all([store.events.append("1", batch(2, 40, BASIC_NOW - 25 * DAY, 1_000)), store.events.append("1", batch(3, 10, BASIC_NOW - DAY))]),
      ),
    });
    expect((await db.sync()).rebuilt).toBe(12 + 200);
    await expectExact(db, store);
  });

  it("takes events captured during a load of appended events, placed before the rows being loaded, exactly once", async () => {
    const store = await basicStore();
    const before = store.analysisData.events("1").length;
    const db = databaseOver(store, null, {
      // Late events land before every row of the running load, moving each of them in the table.
      beforeLoad: onceBefore("events", 3, () => store.events.append("1", batch(5, 60, BASIC_NOW - 30 * DAY, 1_000))),
    });
    await db.sync();
    await store.events.append("1", batch(4, 150, BASIC_NOW - 10 * DAY));
    expect(await db.sync()).toMatchObject({ appended: 150, rebuilt: 0 });
    expect((await counts(db, store)).stored).toBe(before + 150 + 60);
    await expectExact(db, store);
  });

  it("follows a deletion made while a load runs (the project is loaded again)", async () => {
    const store = await basicStore();
    await store.events.append("1", batch(6, 120, BASIC_NOW - 5 * DAY));
    const db = databaseOver(store, null, {
      beforeLoad: onceBefore("events", 2, async () => {
        const person = store.persons.byDistinctId("1", "log-user-1") ?? store.persons.list("1")[0]!;
        await store.persons.remove(person, { deleteEvents: true, userId: 1 });
        clocks.get(store)!.set(Date.parse(store.snapshot().meta.pending_deletions[0]!.run_at));
        expect(await store.events.runDueDeletions()).toBe(true);
      }),
    });
    await db.sync();
    await store.events.append("1", batch(7, 100, BASIC_NOW - 4 * DAY));
    await db.sync();
    await expectExact(db, store);
  });

  it("follows a merge of persons made while a load runs", async () => {
    const store = await basicStore();
    const db = databaseOver(store, null, {
      beforeLoad: onceBefore("events", 2, async () => {
        const [from, into] = store.persons.list("1").filter((p) => p.id === 1 || p.id === 2);
        await store.persons.merge(from!, into!, { distinct_ids: [...into!.distinct_ids, ...from!.distinct_ids], properties: { ...from!.properties, ...into!.properties }, created_at: into!.created_at });
      }),
    });
    await db.sync();
    await store.events.append("1", batch(8, 100, BASIC_NOW - 3 * DAY));
    await db.sync();
    await expectExact(db, store);
  });

  it("recovers from an engine killed in the middle of a load: the load resumes on the engine started after it, exact", async () => {
    const store = await basicStore();
    let db: SqlDatabase | undefined;
    db = databaseOver(store, tempFolder(), { beforeLoad: onceBefore("events", 3, () => process.kill(db!.engineProcessId()!, "SIGKILL")) });
    await db.sync();
    await store.events.append("1", batch(9, 150, BASIC_NOW - 2 * DAY));
    await db.sync();
    await expectExact(db, store);
  });
});

describe("the mirror after a restart", () => {
  /** A store on files, its mirror current, then `changes`; the files are then read back as a restart does. */
  async function restartedAfter(changes: (store: Store, db: SqlDatabase, files: StoreFiles) => Promise<void>) {
    const files = storeFiles(path.join(tempFolder(), "db.json"));
    const store = await basicStore(files);
    await store.events.append("1", batch(10, 80, BASIC_NOW - 6 * DAY));
    await store.events.append("1", batch(11, 30, BASIC_NOW - 40 * DAY, 1_000));
    const db = databaseOver(store, sqlFolderFor(files.meta), {});
    await db.sync();
    await changes(store, db, files);
    await db.close();
    const state = (await readState(files))!;
    const again = await createStore(state, createClock(BASIC_NOW), files, { persist: false });
    return { store: again, db: databaseOver(again, sqlFolderFor(files.meta)), files };
  }

  it("loads only what was captured after the number it applied", async () => {
    const { store, db } = await restartedAfter(async (s) => {
      await s.events.append("1", batch(12, 20, BASIC_NOW - 50 * DAY, 1_000));
    });
    expect(await db.sync()).toMatchObject({ appended: 20, rebuilt: 0 });
    await expectExact(db, store);
  });

  it("deletes the rows of a load the server died in, then loads them once", async () => {
    const { store, db } = await restartedAfter(async (s, first, files) => {
      await s.events.append("1", batch(13, 120, BASIC_NOW - 45 * DAY, 1_000));
      await first.close();
      // The server dies after two files of this load reached ClickHouse: its manifest never recorded them.
      let loaded = 0;
      const dying: SqlDatabase = databaseOver(s, sqlFolderFor(files.meta), {
        beforeLoad: (load) => {
          if (load.table !== "events" || ++loaded < 3) return;
          process.kill(dying.engineProcessId()!, "SIGKILL");
          throw new Error("the server died");
        },
      });
      await expect(dying.sync()).rejects.toThrow();
    });
    expect(await db.sync()).toMatchObject({ appended: 120, rebuilt: 0 });
    await expectExact(db, store);
  });

  it.each([
    ["an appended batch", "logged", "loggex"],
    ["the rewritten beginning", '"event":"$pageview"', '"event":"$pageviex"'],
  ])("serves an events file edited in place (%s) as the file says, through both doors", async (_where, from, to) => {
    let edited = "";
    const { store, db, files } = await restartedAfter(async (_s, _db, files) => {
      const text = readFileSync(files.events, "utf8");
      const at = from === "logged" ? text.lastIndexOf(from) : text.indexOf(from);
      expect(at).toBeGreaterThan(0);
      edited = text.slice(0, at) + to + text.slice(at + from.length);
      expect(edited.length).toBe(text.length);
      writeFileSync(files.events, edited);
    });
    const name = to.replace(/^"event":"|"$/g, "");
    const stored = [...store.analysisData.events("1")].filter((e) => e.event === name).length;
    expect(stored).toBe(1);
    const r = await db.query("SELECT count() FROM events WHERE team_id = 1 AND event = {name:String}", { params: { name } });
    expect(Number(r.rows[0]![0])).toBe(1);
    await expectExact(db, store);
    // The file is written again under the new history, so the start after proves it and the mirror resumes.
    await store.settled();
    await db.close();
    const again = await createStore((await readState(files))!, createClock(BASIC_NOW), files, { persist: false });
    expect(again.analysisData.log().epoch).toBe(store.analysisData.log().epoch);
    const resumed = databaseOver(again, sqlFolderFor(files.meta));
    expect(await resumed.sync()).toMatchObject({ appended: 0, rebuilt: 0 });
    await expectExact(resumed, again);
  });
});

describe("an engine killed at every stage of a load and of a query (issue 38)", () => {
  /**
   * A statement's kind: its first two words (DROP TABLE, CREATE DICTIONARY, ALTER TABLE, SYSTEM RELOAD…), and the
   * table an INSERT fills (a whole load fills the staging table, an append the table itself).
   */
  const shapeOf = (request: { type: string; sql?: string }) => {
    const words = (request.sql ?? "").split(/\s+/);
    return `${request.type} ${words.slice(0, words[0] === "INSERT" ? 3 : 2).join(" ")}`;
  };

  /** What a server does with the SQL engine: a whole load, a query, an appended batch, a query again. */
  async function serve(db: SqlDatabase, store: Store): Promise<void> {
    await db.sync();
    await db.query("SELECT count() FROM events WHERE team_id = 1").catch(() => undefined);
    await store.events.append("1", batch(20, 60, BASIC_NOW - 2 * DAY));
    await db.sync();
    await db.query("SELECT count() FROM events WHERE team_id = 1").catch(() => undefined);
  }

  /** The index of each statement shape's first occurrence in `serve`, in order. */
  async function stages(): Promise<{ index: number; shape: string }[]> {
    const store = await basicStore();
    await store.events.append("1", batch(19, 80, BASIC_NOW - 9 * DAY));
    const seen: string[] = [];
    const db = databaseOver(store, tempFolder(), {}, { beforeRequest: (r) => void seen.push(shapeOf(r)) });
    await serve(db, store);
    return seen.map((shape, index) => ({ index, shape })).filter(({ shape, index }) => seen.indexOf(shape) === index);
  }

  it("answers every statement's kill, before it is sent or while it runs: no rejection is left unhandled, the store's reads go on, and the next sync and query are exact", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => void unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const all = await stages();
      // Every kind of statement a load and a query send: DDL, the staging tables, the INSERTs of files, the
      // partition swaps, merges stopped and started, the dictionary's reload, the reads.
      expect(all.map((s) => s.shape.split(" ")[0])).toEqual(expect.arrayContaining(["admin", "query"]));
      for (const { index, shape } of all) {
        // A statement that runs for a while (a file's INSERT, a read) is also killed while ClickHouse runs it.
        for (const when of /INSERT|query/.test(shape) ? (["before", "during"] as const) : (["before"] as const)) {
          const store = await basicStore();
          await store.events.append("1", batch(19, 80, BASIC_NOW - 9 * DAY));
          let sent = 0;
          let killed = false;
          let db: SqlDatabase | undefined;
          const kill = () => {
            killed = true;
            process.kill(db!.engineProcessId()!, "SIGKILL");
          };
          db = databaseOver(store, tempFolder(), {}, {
            beforeRequest: () => {
              if (sent++ !== index) return;
              if (when === "before") kill();
              else setImmediate(kill);
            },
          });
          await serve(db, store);
          expect({ shape, when, killed }).toEqual({ shape, when, killed: true });
          // The in-process reads never waited on the engine.
          // basic.json holds 11 events of project 1.
          expect(store.analysisData.events("1").length).toBe(11 + 80 + 60);
          await expectExact(db, store);
          await db.close();
        }
      }
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  }, 600_000);
});
