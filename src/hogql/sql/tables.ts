import { reject } from "../../analyses/errors.ts";
import type { EventList, EventRecord, GroupRecord, PersonRecord } from "../../store/schema.ts";
import { eventField, type Compiled, type EventRow, type FieldResolver, type Value } from "../evaluate.ts";

/** What the SQL engine reads: the project's events (with each one's person), persons and groups. */
export interface SqlSource {
  events(): EventList;
  personOf(distinctId: string): PersonRecord | undefined;
  persons(): readonly PersonRecord[];
  groups(): readonly GroupRecord[];
}

/** A table of the SQL engine: its rows, its fields, what `*` expands to, and the fixed types of its columns. */
export interface Table<R> {
  name: string;
  rows(source: SqlSource): Iterable<R>;
  field: FieldResolver<R>;
  star: readonly string[];
  /** ClickHouse type of a field chain, when fixed (properties are typed by their values). */
  typeOf(chain: readonly string[]): string | undefined;
}

const DATETIME = "DateTime64(6, 'UTC')";

function* eventRows(source: SqlSource): Iterable<EventRow> {
  for (const event of source.events()) yield { event, person: source.personOf(event.distinct_id) };
}

const EVENT_TYPES: Readonly<Record<string, string>> = { uuid: "UUID", event: "String", timestamp: DATETIME, distinct_id: "String", elements_chain: "String", person_id: "UUID", properties: "String" };

/** `properties` alone is the JSON string ClickHouse stores; `properties.x` is read by the events evaluator. */
const eventsTable: Table<EventRow> = {
  name: "events",
  rows: eventRows,
  field: (chain, attr) => {
    if (chain.length === 1 && chain[0] === "properties") return ({ event }) => JSON.stringify(event.properties);
    if (chain.length === 2 && chain[0] === "person" && chain[1] === "properties") return ({ person }) => JSON.stringify(person?.properties ?? {});
    return eventField(chain, attr);
  },
  star: ["uuid", "event", "properties", "timestamp", "distinct_id", "elements_chain", "person_id"],
  typeOf: (chain) => (chain.length === 1 ? EVENT_TYPES[chain[0]!] : chain[0] === "person" && chain[1] === "created_at" ? DATETIME : chain[0] === "person" && chain[1] === "id" ? "UUID" : undefined),
};

const dig = (value: unknown, path: readonly string[]): Value => {
  let v = value;
  for (const key of path) v = v !== null && typeof v === "object" && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : null;
  return (v ?? null) as Value;
};

/** The fields of a table of fixed columns plus a JSON `properties` column (read whole, or `properties.x`). */
function columnsAndProperties<R>(table: string, columns: Record<string, Compiled<R>>, properties: (row: R) => Record<string, unknown>): FieldResolver<R> {
  return (chain, attr) => {
    const [head, ...rest] = chain;
    if (head === "properties") return rest.length === 0 ? (row) => JSON.stringify(properties(row)) : (row) => dig(properties(row), rest);
    if (head !== undefined && rest.length === 0 && Object.hasOwn(columns, head)) return columns[head]!;
    throw reject.invalid(attr, `Unknown field "${chain.join(".")}" of table ${table} (fields: ${[...Object.keys(columns), "properties"].join(", ")}).`);
  };
}

const PERSON_TYPES: Readonly<Record<string, string>> = { id: "UUID", created_at: DATETIME, is_identified: "Bool", properties: "String" };

/** `persons`: id (the uuid), created_at, is_identified, properties (and properties.x). */
const personsTable: Table<PersonRecord> = {
  name: "persons",
  rows: (source) => source.persons(),
  field: columnsAndProperties<PersonRecord>(
    "persons",
    { id: (p) => p.uuid, created_at: (p) => new Date(p.created_at), is_identified: (p) => p.is_identified },
    (p) => p.properties,
  ),
  star: ["id", "created_at", "is_identified", "properties"],
  typeOf: (chain) => (chain.length === 1 ? PERSON_TYPES[chain[0]!] : undefined),
};

const GROUP_TYPES: Readonly<Record<string, string>> = { index: "Int64", key: "String", created_at: DATETIME, properties: "String" };

/** `groups`, as the real service's HogQL names its columns: index (the group type index), key, created_at, properties. */
const groupsTable: Table<GroupRecord> = {
  name: "groups",
  rows: (source) => source.groups(),
  field: columnsAndProperties<GroupRecord>(
    "groups",
    { index: (g) => g.group_type_index, key: (g) => g.group_key, created_at: (g) => new Date(g.created_at) },
    (g) => g.properties,
  ),
  star: ["index", "key", "created_at", "properties"],
  typeOf: (chain) => (chain.length === 1 ? GROUP_TYPES[chain[0]!] : undefined),
};

/** The tables `FROM` accepts; anything else is a 400 naming it. */
export const TABLES: ReadonlyMap<string, Table<never>> = new Map<string, Table<never>>([
  ["events", eventsTable as unknown as Table<never>],
  ["persons", personsTable as unknown as Table<never>],
  ["groups", groupsTable as unknown as Table<never>],
]);

/** A SELECT without FROM evaluates its expressions once, over no table: any field is unknown. */
export const noTable: Table<null> = {
  name: "(none)",
  rows: () => [null],
  field: (chain, attr) => {
    throw reject.invalid(attr, `Unknown field "${chain.join(".")}": the query has no FROM table.`);
  },
  star: [],
  typeOf: () => undefined,
};
