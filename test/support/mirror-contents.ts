/**
 * What the SQL mirror should hold, worked out from the store's records (not through the mirror's code), and what it
 * holds, read back through queries.
 */
import { expect } from "vitest";
import { teamIdOf } from "../../src/sql-engine/mirror/schema.ts";
import type { SqlDatabase } from "../../src/sql-engine/sql-database.ts";
import type { Store } from "../../src/store/store.ts";

const ZERO_UUID = "00000000-0000-0000-0000-000000000000";

export const sorted = (rows: unknown[][]) => rows.map((r) => JSON.stringify(r)).sort();

/** The events table as the store says it should be: worked out from the records, not through the mirror's code. */
export function expectedEvents(store: Store): unknown[][] {
  const rows: unknown[][] = [];
  for (const project of store.projects.all()) {
    const types = store.groups.types(project.id);
    for (const e of store.analysisData.events(project.id)) {
      const groups = (e.properties.$groups ?? {}) as Record<string, string>;
      const slots = [0, 1, 2, 3, 4].map((i) => {
        const name = types.find((t) => t.group_type_index === i)?.group_type;
        return (name !== undefined ? groups[name] : undefined) ?? "";
      });
      const person = store.persons.byDistinctId(project.id, e.distinct_id);
      const session = e.properties.$session_id;
      rows.push([teamIdOf(project.id), e.uuid, e.event, e.distinct_id, e.timestamp, e.properties, e.elements_chain, person?.uuid ?? ZERO_UUID, ...slots, typeof session === "string" ? session : ""]);
    }
  }
  return rows;
}

async function mirroredEvents(db: SqlDatabase): Promise<unknown[][]> {
  const r = await db.query(
    "SELECT team_id, toString(uuid), event, distinct_id, toUnixTimestamp64Milli(timestamp), properties, elements_chain, toString(person_id), `$group_0`, `$group_1`, `$group_2`, `$group_3`, `$group_4`, `$session_id` FROM events",
  );
  return r.rows.map((row) => row.map((v, i) => (i === 5 ? JSON.parse(v as string) : v)));
}

function expectedPersons(store: Store): { persons: unknown[][]; distinctIds: unknown[][] } {
  const persons: unknown[][] = [];
  const distinctIds: unknown[][] = [];
  for (const project of store.projects.all()) {
    for (const p of store.persons.list(project.id)) {
      persons.push([teamIdOf(project.id), p.uuid, Date.parse(p.created_at), p.properties, p.is_identified]);
      for (const d of p.distinct_ids) distinctIds.push([teamIdOf(project.id), d, p.uuid]);
    }
  }
  return { persons, distinctIds };
}

async function mirroredPersons(db: SqlDatabase) {
  const persons = await db.query("SELECT team_id, toString(id), toUnixTimestamp64Milli(created_at), properties, is_identified FROM persons");
  const distinctIds = await db.query("SELECT team_id, distinct_id, toString(person_id) FROM person_distinct_ids");
  return { persons: persons.rows.map((r) => r.map((v, i) => (i === 3 ? JSON.parse(v as string) : v))), distinctIds: distinctIds.rows };
}

export async function expectMirrorEqualsStore(db: SqlDatabase, store: Store) {
  expect(sorted(await mirroredEvents(db))).toEqual(sorted(expectedEvents(store)));
  const persons = await mirroredPersons(db);
  const want = expectedPersons(store);
  expect(sorted(persons.persons)).toEqual(sorted(want.persons));
  expect(sorted(persons.distinctIds)).toEqual(sorted(want.distinctIds));
}

