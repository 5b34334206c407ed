import { createClock } from "/work/main/src/clock.ts";
import { stateFromFixtures } from "/work/main/src/store/load-fixtures.ts";
import { createStore } from "/work/main/src/store/store.ts";
import { createSqlDatabase } from "/work/main/src/sql-engine/sql-database.ts";
import { readFileSync } from "node:fs";
const doc = JSON.parse(readFileSync("/work/main/fixtures/scenarios/basic.json", "utf8"));
const clock = createClock(Date.parse(doc.now));
const store = await createStore(stateFromFixtures(doc, clock.now()), clock, null, { persist: false });
const db = createSqlDatabase({ store, folder: null });
for (const q of process.argv.slice(2)) {
  try { const r = await db.query(q, { settings: { date_time_output_format: "iso", session_timezone: "UTC", asterisk_include_materialized_columns: 1, asterisk_include_alias_columns: 1, transform_null_in: 1 } }); console.log(r.columns, r.types, r.rows.slice(0, 3)); } catch (e) { console.log("ERR", (e as Error).message); }
}
await db.close();
