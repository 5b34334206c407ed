import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { deriveSessions } from "../../../src/analyses/shared/session-properties.ts";
import { createClock, type Clock } from "../../../src/core/clock.ts";
import type { FixtureDocument } from "../../../src/store/fixture-document.ts";
import { MATERIALIZED_PROPERTIES } from "../../../src/core/property-text.ts";
import { createSqlDatabase, sqlFolderFor, type SqlDatabase } from "../../../src/sql-engine/sql-database.ts";
import { stateFromFixtures } from "../../../src/store/load-fixtures.ts";
import type { EventRecord } from "../../../src/store/schema.ts";
import { createStore, type Store } from "../../../src/store/store.ts";
import { expectMirrorEqualsStore, sorted } from "../../support/mirror-contents.ts";
import { scenario } from "../../support/server.ts";

const opened: SqlDatabase[] = [];
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.close()));
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true });
});

const clocks = new WeakMap<Store, Clock>();
async function storeOf(doc: FixtureDocument): Promise<Store> {
  const clock = createClock(Date.parse(doc.now!));
  const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
  clocks.set(store, clock);
  return store;
}

function databaseOver(store: Store, folder: string | null = null): SqlDatabase {
  const db = createSqlDatabase({ store, folder });
  opened.push(db);
  return db;
}

const captured = (projectId: string, n: number, at: number, distinctId = "a"): EventRecord[] =>
  Array.from({ length: n }, (_, i) => ({
    uuid: `0190ffff-0000-4000-8000-${String(i).padStart(12, "0")}`,
    project_id: projectId,
    event: "late_event",
    distinct_id: distinctId,
    timestamp: at + i * 1000,
    properties: { $browser: "Firefox", note: "tab\tand\nnewline \\ \"quoted\"" },
    elements_chain: "",
  }));

describe("the mirror: the store's tables in ClickHouse", () => {
  it("is not started before the first SQL use", async () => {
    const db = databaseOver(await storeOf(scenario("basic")));
    expect(db.started()).toBe(false);
    await db.query("SELECT 1");
    expect(db.started()).toBe(true);
  });

  it.each(["basic", "groups", "sessions"])("holds the store's events, persons and distinct ids (%s.json)", async (name) => {
    const store = await storeOf(scenario(name));
    const db = databaseOver(store);
    await expectMirrorEqualsStore(db, store);
  });

  it("holds the store's groups as HogQL names their columns", async () => {
    const store = await storeOf(scenario("groups"));
    const db = databaseOver(store);
    const r = await db.query("SELECT team_id, index, key, toUnixTimestamp64Milli(created_at), properties FROM groups");
    const want = store.groups.list("1").map((g) => [1, g.group_type_index, g.group_key, Date.parse(g.created_at), g.properties]);
    expect(sorted(r.rows.map((row) => row.map((v, i) => (i === 4 ? JSON.parse(v as string) : v))))).toEqual(sorted(want));
  });

  it("computes sessions as the in-process session properties do (entry/end URL, duration, counts, bounce)", async () => {
    const store = await storeOf(scenario("sessions"));
    const db = databaseOver(store);
    const r = await db.query(
      "SELECT session_id, toUnixTimestamp64Milli(`$start_timestamp`), toUnixTimestamp64Milli(`$end_timestamp`), `$entry_current_url`, `$end_current_url`, `$entry_pathname`, `$session_duration`, `$pageview_count`, `$autocapture_count`, `$is_bounce` FROM sessions WHERE team_id = 1",
    );
    const want = [...deriveSessions(store.analysisData.events("1"))].map(([id, s]) => {
      const duration = Math.floor(s.end / 1000) - Math.floor(s.start / 1000);
      // The real expression's type: if(…, NULL, NOT …) is a Nullable(UInt8), 1 for a bounce.
      const bounce = s.pageviews === 0 ? null : Number(!(s.pageviews > 1 || s.autocaptures > 0 || duration >= 10));
      const pathname = s.entryUrl === null ? null : new URL(s.entryUrl).pathname;
      return [id, s.start, s.end, s.entryUrl, s.exitUrl, pathname, duration, s.pageviews, s.autocaptures, bounce];
    });
    expect(want.length).toBeGreaterThan(1);
    expect(sorted(r.rows)).toEqual(sorted(want));
  });

  it("fills the materialised columns with what ClickHouse's own expression reads from the properties", async () => {
    const store = await storeOf(scenario("sessions"));
    // (A lone surrogate would make ClickHouse's JSON parser refuse the whole properties text: every read is then "".)
    const tricky = { $browser: 'say "hi" \\ \u2028 \ud83d\ude00', $os: 42.5, $device_type: null, $current_url: { a: ["b"] }, $pathname: ["x", "y"], $host: "", $lib: true, $session_id: 7, $window_id: "w\n1" };
    await store.events.append("1", [{ ...captured("1", 1, Date.parse("2024-03-06T00:00:00Z"))[0]!, properties: tricky }]);
    const db = databaseOver(store);
    const columns = ["$session_id", "$window_id", ...MATERIALIZED_PROPERTIES.map((k) => `mat_${k}`)];
    const keys = ["$session_id", "$window_id", ...MATERIALIZED_PROPERTIES];
    const differing = columns.map((c, i) => `countIf(\`${c}\` != replaceRegexpAll(JSONExtractRaw(properties, '${keys[i]}'), '^"|"$', ''))`);
    const r = await db.query(`SELECT count(), ${differing.join(", ")} FROM events`);
    expect(r.rows[0]).toEqual([store.analysisData.events("1").length, ...columns.map(() => 0)]);
  });
});

describe("the mirror is current at every query (read-your-writes)", () => {
  it("inserts only the appended events after a capture, in or out of timestamp order", async () => {
    const store = await storeOf(scenario("basic"));
    const db = databaseOver(store);
    await db.sync();
    const newest = Math.max(...[...store.analysisData.events("1")].map((e) => e.timestamp));
    await store.events.append("1", captured("1", 3, newest + 60_000));
    const report = await db.sync();
    expect(report).toMatchObject({ appended: 3, rebuilt: 0 });
    await expectMirrorEqualsStore(db, store);
    // A late capture lands inside the table: the captured events alone are inserted, nothing reloaded.
    const late = Date.parse("2024-03-02T23:00:00Z");
    await store.events.append("1", captured("1", 1, late, "b"));
    expect(await db.sync()).toMatchObject({ appended: 1, rebuilt: 0 });
    await expectMirrorEqualsStore(db, store);
  });

  it("loads what was captured while no mirror was watching by its log numbers (a capture before a restart)", async () => {
    const store = await storeOf(scenario("basic"));
    const folder = mkdtempSync(path.join(tmpdir(), "mirror-late-"));
    folders.push(folder);
    await databaseOver(store, folder).sync();
    await opened.pop()!.close();
    await store.events.append("1", captured("1", 1, Date.parse("2024-03-02T23:00:00Z"), "b"));
    const db = databaseOver(store, folder);
    expect(await db.sync()).toMatchObject({ appended: 1, rebuilt: 0 });
    await expectMirrorEqualsStore(db, store);
  });

  it("moves events to the surviving person after a merge, without reloading events", async () => {
    const store = await storeOf(scenario("basic"));
    const db = databaseOver(store);
    await db.sync();
    const [from, into] = store.persons.list("1").filter((p) => p.id === 1 || p.id === 2);
    expect(from && into).toBeTruthy();
    await store.persons.merge(from!, into!, { distinct_ids: [...into!.distinct_ids, ...from!.distinct_ids], properties: { ...from!.properties, ...into!.properties }, created_at: into!.created_at });
    const report = await db.sync();
    expect(report).toMatchObject({ appended: 0, rebuilt: 0, personsReplaced: 1 });
    await expectMirrorEqualsStore(db, store);
    const r = await db.query("SELECT count() FROM events WHERE team_id = 1 AND person_id = {id:UUID}", { params: { id: into!.uuid } });
    expect(r.rows[0]![0]).toBe([...store.analysisData.events("1")].filter((e) => into!.distinct_ids.includes(e.distinct_id)).length);
  });

  it("drops a deleted person and, once the deletion runs, its events", async () => {
    const store = await storeOf(scenario("basic"));
    const db = databaseOver(store);
    await db.sync();
    const person = store.persons.list("1")[0]!;
    await store.persons.remove(person, { deleteEvents: true, userId: 1 });
    await expectMirrorEqualsStore(db, store);
    clocks.get(store)!.set(Date.parse(store.snapshot().meta.pending_deletions[0]!.run_at));
    expect(await store.events.runDueDeletions()).toBe(true);
    const r = await db.query("SELECT count() FROM events WHERE team_id = 1 AND distinct_id IN {ids:Array(String)}", { params: { ids: person.distinct_ids } });
    expect(r.rows[0]![0]).toBe(0);
    await expectMirrorEqualsStore(db, store);
  });

  it("follows a reset of the whole state, projects that disappeared included", async () => {
    const store = await storeOf(scenario("basic"));
    const db = databaseOver(store);
    await db.sync();
    const doc = scenario("sessions");
    await store.replace(stateFromFixtures(doc, Date.parse(doc.now!)));
    await expectMirrorEqualsStore(db, store);
    expect((await db.query("SELECT DISTINCT team_id FROM events")).rows).toEqual([[1]]);
  });
});

describe("the mirror on disk", () => {
  it("survives a restart over unchanged data without loading anything, and loads only what was appended since", async () => {
    const folder = mkdtempSync(path.join(tmpdir(), "mirror-test-"));
    folders.push(folder);
    const store = await storeOf(scenario("basic"));
    const first = databaseOver(store, folder);
    await first.sync();
    await first.close();

    const again = databaseOver(store, folder);
    expect(await again.sync()).toMatchObject({ appended: 0, rebuilt: 0, personsReplaced: 0, groupsReplaced: 0 });
    await expectMirrorEqualsStore(again, store);
    await again.close();

    const newest = Math.max(...[...store.analysisData.events("1")].map((e) => e.timestamp));
    await store.events.append("1", captured("1", 2, newest + 1000));
    const third = databaseOver(store, folder);
    expect(await third.sync()).toMatchObject({ appended: 2, rebuilt: 0, personsReplaced: 0 });
    await expectMirrorEqualsStore(third, store);
  });

  it("is kept beside the data file", () => {
    expect(sqlFolderFor("data/db.json")).toBe("data/db.clickhouse");
    expect(sqlFolderFor(null)).toBeNull();
  });
});
