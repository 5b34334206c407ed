import stringify from "safe-stable-stringify";
import { reject } from "../../analyses/errors.ts";
import type { HogqlNode } from "../parse.ts";
import { isAggregateCall } from "./aggregates.ts";
import { columnName } from "./names.ts";

/** A node's shape for structural comparison (GROUP BY keys against SELECT expressions), whatever its key order. */
export const shapeOf = (node: unknown): string => stringify(node) ?? "";

/** Every aggregate call in the expression, outermost only; an aggregate inside another is a 400. */
export function aggregateCalls(node: unknown, attr: string, inside = false, found: HogqlNode[] = []): HogqlNode[] {
  if (Array.isArray(node)) {
    node.forEach((n) => aggregateCalls(n, attr, inside, found));
    return found;
  }
  if (node === null || typeof node !== "object") return found;
  const n = node as HogqlNode;
  if (isAggregateCall(n)) {
    if (inside) throw reject.invalid(attr, `Aggregate function ${String(n.name)}() inside another aggregate is not allowed.`);
    found.push(n);
    aggregateCalls(n.args, attr, true, found);
    return found;
  }
  for (const [key, value] of Object.entries(n)) if (key !== "node") aggregateCalls(value, attr, inside, found);
  return found;
}

/**
 * Rewrites an expression evaluated per group: aggregate calls become `__agg.i` and sub-expressions equal to a
 * GROUP BY key become `__key.k`, so what is left (fields outside both) can be refused by name.
 */
export function overGroups(node: HogqlNode, slots: ReadonlyMap<string, number>, keys: ReadonlyMap<string, number>): HogqlNode {
  const shape = shapeOf(node);
  const key = keys.get(shape);
  if (key !== undefined) return { node: "Field", chain: ["__key", String(key)] };
  const slot = slots.get(shape);
  if (slot !== undefined) return { node: "Field", chain: ["__agg", String(slot)] };
  const rewritten: HogqlNode = { node: node.node };
  for (const [k, v] of Object.entries(node)) {
    if (k === "node") continue;
    rewritten[k] = Array.isArray(v) ? v.map((x) => (isNode(x) ? overGroups(x, slots, keys) : x)) : isNode(v) ? overGroups(v, slots, keys) : v;
  }
  return rewritten;
}

const isNode = (v: unknown): v is HogqlNode => v !== null && typeof v === "object" && typeof (v as HogqlNode).node === "string";

/** What a grouped expression may not read: a column that is neither aggregated nor a GROUP BY key (ClickHouse's NOT_AN_AGGREGATE). */
export function notAggregated(chain: readonly string[], attr: string): Error {
  return reject.invalid(attr, `Column ${chain.join(".")} is neither inside an aggregate function nor in GROUP BY.`);
}

export { columnName };
