import { createClock } from "/work/main/src/clock.ts";
import { stateFromFixtures } from "/work/main/src/store/load-fixtures.ts";
import { createStore } from "/work/main/src/store/store.ts";
import { createSqlDatabase } from "/work/main/src/sql-engine/sql-database.ts";
import { readFileSync } from "node:fs";
import { corpusFixture } from "/work/main/test/integration/hogql-corpus.fixture.ts";
const doc = corpusFixture() as any;
const clock = createClock(Date.parse(doc.now));
const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
const db = createSqlDatabase({ store, folder: null, timeoutMs: 3000 });
let t = performance.now();
await db.query("SELECT 1");
console.log("first", performance.now() - t);
t = performance.now();
try { await db.query("SELECT count() FROM (SELECT * FROM events WHERE team_id=1) a, (SELECT * FROM events WHERE team_id=1) b, (SELECT * FROM events WHERE team_id=1) c, (SELECT * FROM events WHERE team_id=1) d, (SELECT * FROM events WHERE team_id=1) e, (SELECT * FROM events WHERE team_id=1) f, (SELECT * FROM events WHERE team_id=1) g"); } catch (e) { console.log((e as any).kind, (e as Error).message.slice(0, 200)); }
console.log("slow", performance.now() - t);
await db.close();
