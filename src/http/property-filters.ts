import { compilePropertyFilters, type Subject } from "../analyses/shared/property-filter.ts";
import type { FilterContext } from "../analyses/shared/context.ts";
import { fail } from "../core/errors.ts";
import { parseCallerJson } from "./json-depth.ts";
import type { SchemaValidator } from "../pipeline/schemas.ts";

type Node = Record<string, unknown>;

/** Keeps only the filters whose type is in `types` (persons lists read person and cohort filters only). */
export function pruneFilters(node: unknown, types: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((child) => pruneFilters(child, types)).filter((child) => child !== null);
  if (!node || typeof node !== "object") return node;
  const n = node as Node;
  if (Array.isArray(n.values) && (n.type === "AND" || n.type === "OR")) return { ...n, values: pruneFilters(n.values, types) };
  return types.has(String(n.type ?? "event")) ? n : null;
}

/**
 * The `properties` query parameter of the persons and events lists: JSON (400 "Properties are unparsable!"
 * otherwise, as the real service says), validated against the PropertyFilters schema, compiled once.
 */
export function propertiesParam(
  raw: unknown,
  schemas: SchemaValidator,
  ctx: FilterContext,
  keepTypes?: ReadonlySet<string>,
): ((subject: Subject) => boolean) | null {
  if (raw === undefined || raw === "") return null;
  let parsed: unknown;
  try {
    parsed = typeof raw === "string" ? parseCallerJson(raw, "properties") : raw;
  } catch (err) {
    if (err instanceof SyntaxError) throw fail.invalid("properties", "Properties are unparsable!");
    throw err;
  }
  schemas.assert("PropertyFilters", parsed, "properties");
  return compilePropertyFilters(keepTypes ? pruneFilters(parsed, keepTypes) : parsed, ctx, "properties");
}
