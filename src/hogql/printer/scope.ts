import { reject } from "../../core/analysis-errors.ts";
import type { CteNode, Node } from "./ast.ts";
import { escapeIdentifier, escapeString } from "./escape.ts";
import { SCHEMA, TEAM_COLUMN, type FieldType, type TableName } from "./schema.ts";

/** What a name in FROM stands for: a table of the HogQL database or a subquery (its output columns and their types). */
export interface TableRef {
  alias: string;
  /** For a lazy join: the FROM entry it hangs from, after which it is printed (a later JOIN's ON may use it). */
  root?: string;
  table?: TableName;
  columns?: Map<string, FieldType | undefined>;
}

/** A join HogQL adds itself, printed once the whole query is known (its property reads are part of it). */
export interface LazyJoin {
  /** The FROM entry it hangs from. */
  root: string;
  table: TableName;
  on: string;
  /**
   * The joined table's properties the query reads, computed inside the joined subquery (one read per person or
   * group, as the real printer does) rather than once per joined row: column name → expression.
   */
  reads: Map<string, string>;
  /** Joined through person_distinct_ids by distinct id (LazyJoinField.byDistinctId). */
  byDistinctId: boolean;
}

const PDI_DISTINCT_ID = columnOf("person_distinct_ids", "distinct_id");

/** The LEFT JOIN of a lazy join, with the property reads its subquery computes. */
export function lazyJoinSql(alias: string, join: LazyJoin, teamId: number): string {
  const reads = [...join.reads].map(([name, sql]) => `, ${sql} AS ${escapeIdentifier(name)}`).join("");
  const table = reads ? `(SELECT *${reads} FROM ${escapeIdentifier(SCHEMA[join.table].ch)} WHERE equals(${TEAM_COLUMN}, ${teamId}))` : scopedTableSql(join.table, teamId);
  return `LEFT JOIN ${join.byDistinctId ? byDistinctIdSql(table, teamId) : table} AS ${escapeIdentifier(alias)} ON ${join.on}`;
}

/** The persons subquery with each of their distinct ids: one row per distinct id, joined on it. */
function byDistinctIdSql(persons: string, teamId: number): string {
  const pdi = escapeIdentifier("pdi");
  const person = escapeIdentifier("person");
  const personId = `${pdi}.${escapeIdentifier(columnOf("person_distinct_ids", "person_id"))}`;
  const id = `${person}.${escapeIdentifier(columnOf("persons", "id"))}`;
  return `(SELECT ${person}.*, ${pdi}.${escapeIdentifier(PDI_DISTINCT_ID)} AS ${escapeIdentifier(PDI_DISTINCT_ID)} FROM ${scopedTableSql("person_distinct_ids", teamId)} AS ${pdi} INNER JOIN ${persons} AS ${person} ON equals(${personId}, ${id}))`;
}

/** The ClickHouse column of a table's field. */
function columnOf(table: TableName, field: string): string {
  const f = SCHEMA[table].fields[field];
  if (f?.kind !== "column") throw new Error(`not a column: ${table}.${field}`);
  return f.ch;
}

/** The names visible inside one SELECT (PostHog `resolver.py`'s scope): its tables, select aliases, CTEs, lambda arguments. */
export interface Scope {
  tables: TableRef[];
  /** Joins HogQL adds itself (`events__person`), in the order their fields were first used; printed after the FROM. */
  lazyJoins: Map<string, LazyJoin>;
  selectAliases: Map<string, Node>;
  ctes: Map<string, CteNode>;
  lambdaArgs: Set<string>;
  /** The aggregate being printed, to refuse one nested in another. */
  aggregate?: string;
  inJoinConstraint: boolean;
}

export function newScope(parent?: Scope): Scope {
  return { tables: [], lazyJoins: new Map(), selectAliases: new Map(), ctes: new Map(parent?.ctes ?? []), lambdaArgs: new Set(), inJoinConstraint: false };
}

/**
 * Every read of a table goes through here: a subquery that keeps only this project's rows. Because the bare table
 * is never printed anywhere else, no construct (join, subquery, CTE, UNION branch, `IN (SELECT …)`, lazy join)
 * can reach another project's rows.
 */
export function scopedTableSql(table: TableName, teamId: number): string {
  if (!Number.isSafeInteger(teamId)) throw new Error("the printer needs an integer team id");
  return `(SELECT * FROM ${escapeIdentifier(SCHEMA[table].ch)} WHERE equals(${TEAM_COLUMN}, ${teamId}))`;
}

/** A resolved field: its SQL, whether it may be NULL (for HogQL's comparison wrapping) and its type when known. */
export interface Resolved {
  sql: string;
  nullable: boolean;
  type?: FieldType;
  /** The column name HogQL gives it when selected bare. */
  name: string;
  /** Set when the SQL is not the bare column (a property read, a date-time in the time zone): selected, it gets `AS name`. */
  implicitAlias?: boolean;
}

export interface ResolveContext {
  teamId: number;
  timezone: string;
  /** Property definitions' types by kind (`event`, `person`, `group`), from the project's property definitions. */
  propertyTypes?: Partial<Record<string, Record<string, string>>>;
  /** The engine's materialised property columns: table → `properties.$browser` → column name. */
  materializedProperties?: Partial<Record<TableName, Record<string, string>>>;
}

const PROPERTY_KIND: Partial<Record<TableName, string>> = { events: "event", persons: "person", groups: "group" };

/** HogQL's read of an unmaterialised property: "" and JSON null count as NULL, string quotes trimmed (printer.py). */
export function propertySql(column: string, keys: Array<string | number>): string {
  const path = keys.map((k) => (typeof k === "number" ? String(k) : escapeString(k))).join(", ");
  return `replaceRegexpAll(nullIf(nullIf(JSONExtractRaw(${column}, ${path}), ''), 'null'), '^"|"$', '')`;
}

/**
 * A property read: from the engine's materialised column when it has one (its "" and "null" read as NULL, deeper
 * keys extracted from it, as printer.py does), else from the JSON text.
 */
function readProperty(ref: TableRef, columnSql: string, column: string, keys: Array<string | number>, ctx: ResolveContext): string {
  const materialized = ctx.materializedProperties?.[ref.table!]?.[`${column}.${String(keys[0])}`];
  if (materialized === undefined) return propertySql(columnSql, keys);
  const base = `nullIf(nullIf(${escapeIdentifier(ref.alias)}.${escapeIdentifier(materialized)}, ''), 'null')`;
  return keys.length === 1 ? base : propertySql(base, keys.slice(1));
}

/** Property types from definitions (PostHog `transforms/property_types.py`): Numeric, Boolean, DateTime; String stays as read. */
function typedProperty(sql: string, type: string | undefined, timezone: string): { sql: string; type: FieldType } {
  if (type === "Numeric") return { sql: `accurateCastOrNull(${sql}, 'Float64')`, type: "float" };
  if (type === "Boolean") return { sql: `transform(toString(${sql}), ['true', 'false'], [true, false], NULL)`, type: "boolean" };
  if (type === "DateTime") return { sql: `parseDateTime64BestEffortOrNull(${sql}, 6, ${escapeString(timezone)})`, type: "datetime" };
  return { sql, type: "string" };
}

/** Resolves a field path on one FROM entry (a table, then lazy joins, columns and property keys). */
export function resolveOnRef(ref: TableRef, chain: Array<string | number>, scope: Scope, ctx: ResolveContext): Resolved {
  const [head, ...rest] = chain;
  const name = String(head);
  const alias = escapeIdentifier(ref.alias);
  if (!ref.table) {
    if (!ref.columns?.has(name)) throw reject.invalid("query", `Field not found: ${name}`);
    const type = ref.columns.get(name);
    const sql = `${alias}.${escapeIdentifier(name)}`;
    if (rest.length === 0) return { sql, nullable: true, type, name };
    if (type !== "json") throw reject.invalid("query", `Can not access property "${rest.join(".")}" on field "${name}"`);
    return { sql: propertySql(sql, rest), nullable: true, type: "string", name: String(rest[rest.length - 1]), implicitAlias: true };
  }
  const field = SCHEMA[ref.table].fields[name];
  if (!field) throw reject.invalid("query", `Field not found: ${name}`);
  if (field.kind === "path") {
    const r = resolveOnRef(ref, [...field.path, ...rest], scope, ctx);
    return rest.length === 0 ? { ...r, name } : r;
  }
  if (field.kind === "join") {
    if (rest.length === 0) throw reject.invalid("query", `Can't select a table when a column is expected: ${name}`);
    const joined = addLazyJoin(ref, name, scope, ctx);
    return resolveOnRef(joined, rest, scope, ctx);
  }
  const sql = `${alias}.${escapeIdentifier(field.ch)}`;
  if (rest.length > 0) {
    if (field.type !== "json") throw reject.invalid("query", `Can not access property "${rest.join(".")}" on field "${name}"`);
    const kind = PROPERTY_KIND[ref.table];
    const typeOf = (column: string) => typedProperty(readProperty(ref, column, field.ch, rest, ctx), rest.length === 1 && kind ? ctx.propertyTypes?.[kind]?.[String(rest[0])] : undefined, ctx.timezone);
    const lazy = ref.root === undefined ? undefined : scope.lazyJoins.get(ref.alias);
    if (lazy) {
      // Read inside the joined subquery, over its own column: once per person, not once per event joined.
      const read = typeOf(escapeIdentifier(field.ch));
      const column = `${field.ch}___${rest.map(String).join("___")}`;
      lazy.reads.set(column, read.sql);
      return { sql: `${alias}.${escapeIdentifier(column)}`, nullable: true, type: read.type, name: String(rest[rest.length - 1]), implicitAlias: true };
    }
    const typed = typeOf(sql);
    return { sql: typed.sql, nullable: true, type: typed.type, name: String(rest[rest.length - 1]), implicitAlias: true };
  }
  // Date-times are shown in the project's time zone, as HogQL prints every DateTime field.
  if (field.type === "datetime") return { sql: `toTimeZone(${sql}, ${escapeString(ctx.timezone)})`, nullable: field.nullable, type: "datetime", name, implicitAlias: true };
  return { sql, nullable: field.nullable, type: field.type, name };
}

/** Adds the LEFT JOIN HogQL's resolver adds for `person.*`, `pdi.*`, `session.*` (once per path), and returns its entry. */
function addLazyJoin(ref: TableRef, name: string, scope: Scope, ctx: ResolveContext): TableRef {
  const field = SCHEMA[ref.table!].fields[name];
  if (field?.kind !== "join") throw new Error(`not a join: ${name}`);
  const alias = `${ref.alias}__${name}`;
  if (!scope.lazyJoins.has(alias)) {
    const from = field.byDistinctId ? columnOf(ref.table!, "distinct_id") : columnOf(ref.table!, field.from);
    const to = field.byDistinctId ? PDI_DISTINCT_ID : columnOf(field.table, field.to);
    const keys = `equals(${escapeIdentifier(ref.alias)}.${escapeIdentifier(from)}, ${escapeIdentifier(alias)}.${escapeIdentifier(to)})`;
    const fixed = Object.entries(field.where ?? {}).map(([name, value]) => `equals(${escapeIdentifier(alias)}.${escapeIdentifier(name)}, ${value})`);
    const on = fixed.length ? `and(${[keys, ...fixed].join(", ")})` : keys;
    scope.lazyJoins.set(alias, { root: ref.root ?? ref.alias, table: field.table, on, reads: new Map(), byDistinctId: field.byDistinctId === true });
  }
  return { alias, root: ref.root ?? ref.alias, table: field.table };
}

/** Resolves a field path in a scope: table alias, select alias, lambda argument, then the one table that has it. */
export function resolveChain(chain: Array<string | number>, scope: Scope, ctx: ResolveContext): Resolved | { alias: string } {
  const head = String(chain[0]);
  if (scope.lambdaArgs.has(head) && chain.length === 1) return { alias: head };
  const byAlias = scope.tables.find((t) => t.alias === head);
  if (byAlias && chain.length > 1) return resolveOnRef(byAlias, chain.slice(1), scope, ctx);
  if (scope.selectAliases.has(head) && chain.length === 1) return { alias: head };
  const owners = scope.tables.filter((t) => (t.table ? SCHEMA[t.table].fields[head] !== undefined : t.columns?.has(head)));
  if (owners.length > 1) throw reject.invalid("query", `Ambiguous query. Found multiple sources for field: ${head}`);
  if (owners.length === 1) return resolveOnRef(owners[0]!, chain, scope, ctx);
  throw reject.invalid("query", `Unable to resolve field: ${head}`);
}
