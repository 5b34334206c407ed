import { reject } from "../../core/analysis-errors.ts";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import { parseHogqlOrder } from "../../hogql/parse.ts";
import { call, compare, constant, field, type HogqlNode } from "../../hogql/printer/ast.ts";
import type { PersonRecord } from "../../store/schema.ts";
import { actorColumns, type Actor } from "./actors-query.ts";
import { integer } from "./events-query.ts";
import { DEFAULT_ROWS, MAX_ROWS, runAst, type SqlContext } from "./sql-query.ts";

/** How the runner reads the store's persons: the object of a uuid HogQL returned, and its display name. */
export interface PersonLookup {
  find: (uuid: string) => PersonRecord | undefined;
  personName: (person: PersonRecord) => string;
}

/** A column read by HogQL over `persons`, or (person object, display name, …) built from the store by the row's id. */
type Column = { expr: HogqlNode } | { read: (actor: Actor) => unknown };

const DESC = (expr: HogqlNode): HogqlNode => ({ node: "OrderExpr", expr, order: "DESC" });

/**
 * An ActorsQuery without a source, as the real service's ActorsQueryRunner with its person strategy: one HogQL
 * SELECT over `persons` (the project filter added by the printer) with `search`, `orderBy` (by default the newest
 * first), `limit`/`offset`; the person objects are then read from the store by the ids returned, as the real runner
 * enriches its rows. `types` are ClickHouse's for the columns HogQL reads, `String` for the others.
 */
export async function runPersonsQuery(node: Loose, attr: string, select: readonly string[], ctx: SqlContext, lookup: PersonLookup) {
  const readers = actorColumns(select, attr, lookup.personName);
  const columns = select.map((raw, i): Column => hogqlColumn(raw) ?? { read: readers[i]! });
  const exprs = columns.flatMap((c) => ("expr" in c ? [c.expr] : []));
  const search = typeof node.search === "string" && node.search !== "" ? searchExpr(node.search) : null;
  const ast: HogqlNode = {
    node: "SelectQuery",
    select: [field("id"), ...exprs],
    select_from: { node: "JoinExpr", table: field("persons"), alias: null, next_join: null, table_final: null, sample: null },
    where: search,
    prewhere: null,
    group_by: null,
    having: null,
    distinct: null,
    ctes: null,
    order_by: orderOf(node.orderBy, `${attr}__orderBy`),
    limit: constant(Math.min(integer(node.limit, DEFAULT_ROWS, `${attr}__limit`), MAX_ROWS)),
    offset: constant(integer(node.offset, 0, `${attr}__offset`)),
  };
  const answer = await runAst(ast, attr, ctx);
  let missing = 0;
  const results = answer.results.map(([id, ...cells]) => {
    const person = lookup.find(String(id));
    if (!person) missing += 1;
    const actor: Actor = { person, value: null };
    let next = 0;
    return columns.map((c) => ("expr" in c ? cells[next++] : c.read(actor)));
  });
  let typeAt = 1;
  const types = columns.map((c) => ("expr" in c ? answer.types[typeAt++]! : "String"));
  return { columns: [...select], types, results, hasMore: answer.hasMore, limit: answer.limit, offset: answer.offset, missing_actors_count: missing };
}

/**
 * `id`, `created_at` and `properties.<key>` are read by HogQL (a key is one name, dots included, as before); the
 * others are the actors columns built from the store.
 */
function hogqlColumn(raw: string): Column | undefined {
  const column = raw.replace(/\s+--.*$/, "").trim();
  if (column === "id" || column === "actor_id") return { expr: field("id") };
  if (column === "created_at") return { expr: field("created_at") };
  const property = /^properties\.(.+)$/.exec(column);
  return property ? { expr: field("properties", property[1]!) } : undefined;
}

/**
 * The real person strategy's search: `email` or `name` containing the text, the uuid containing it, or a distinct
 * id containing it, all case-insensitively; `%` and `_` in the text are ILIKE's wildcards there too.
 */
function searchExpr(text: string): HogqlNode {
  const pattern = constant(`%${text}%`);
  const distinctIds: HogqlNode = {
    node: "SelectQuery",
    select: [field("person_id")],
    select_from: { node: "JoinExpr", table: field("person_distinct_ids"), alias: null, next_join: null, table_final: null, sample: null },
    where: compare("ilike", field("distinct_id"), pattern),
    prewhere: null,
    group_by: null,
    having: null,
    distinct: null,
    ctes: null,
  };
  return {
    node: "Or",
    exprs: [
      compare("ilike", call("toString", field("properties", "email")), pattern),
      compare("ilike", call("toString", field("properties", "name")), pattern),
      compare("ilike", call("toString", field("id")), pattern),
      compare("in", field("id"), distinctIds),
    ],
  };
}

/**
 * HogQL order expressions; `person` (with ASC or DESC) orders by the email, as the real person strategy without
 * display-name properties; `actor_id` is the id and `event_count` (null without a source) orders nothing. Ties
 * fall to the default order, newest first then by id, so that pages do not overlap.
 */
function orderOf(value: unknown, attr: string): HogqlNode[] {
  const fallback = [DESC(field("created_at")), DESC(field("id"))];
  if (value === undefined || value === null) return fallback;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) throw reject.invalid(attr, "Expected a list of HogQL order expressions.");
  const person = /^person(?:\s+(ASC|DESC))?$/i.exec(String(value[0] ?? "").trim());
  if (value.length === 1 && person) return [{ node: "OrderExpr", expr: field("properties", "email"), order: (person[1] ?? "ASC").toUpperCase() }, ...fallback];
  const orders = (value as string[]).map((text, i) => parseHogqlOrder(text, `${attr}__${i}`)).flatMap((o): HogqlNode[] => {
    const chain = (o.expr as HogqlNode).chain as unknown[] | undefined;
    if (chain?.length === 1 && chain[0] === "event_count") return [];
    return chain?.length === 1 && chain[0] === "actor_id" ? [{ ...o, expr: field("id") }] : [o];
  });
  return [...orders, ...fallback];
}
