import { createClock } from "/work/main/src/clock.ts";
import { stateFromFixtures } from "/work/main/src/store/load-fixtures.ts";
import { createStore } from "/work/main/src/store/store.ts";
import { createSqlDatabase } from "/work/main/src/sql-engine/sql-database.ts";
import { loadHogql, parseHogqlSelect } from "/work/main/src/hogql/parse.ts";
import { printSelect, HOGQL_CLICKHOUSE_SETTINGS } from "/work/main/src/hogql/printer/print.ts";
import { readFileSync } from "node:fs";
const doc = JSON.parse(readFileSync("/work/main/fixtures/scenarios/" + process.argv[2] + ".json", "utf8"));
const clock = createClock(Date.parse(doc.now ?? new Date().toISOString()));
const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
const db = createSqlDatabase({ store, folder: null });
await loadHogql();
const project = store.projects.all()[0]!;
for (const q of process.argv.slice(3)) {
  const p = printSelect(parseHogqlSelect(q, "q"), { teamId: Number(project.id), timezone: project.timezone, now: clock.now(), defaultLimit: 100, maxLimit: 50000 });
  console.log(p.clickhouse);
  try { const r = await db.query(p.clickhouse); console.log(r.columns, r.types, r.rows.slice(0, 5)); } catch (e) { console.log("ERR", (e as Error).message); }
}
await db.close();
