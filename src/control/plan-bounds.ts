import { fail } from "../core/errors.ts";

/**
 * What one tracking plan may hold, checked before ajv compiles anything: ajv turns each schema into code (a
 * large enum takes seconds to compile), and a `$ref` that leads back to itself without reading into the event
 * (`{"$ref": "#"}`) recursed until the stack overflowed on the first event judged. openapi/control.yaml states
 * these numbers on TrackingPlan.
 */
export const PLAN_LIMITS = {
  /** Event names in `events`. */
  events: 200,
  /** Schemas (objects and booleans in schema places) in the whole plan, counted once each: ajv's compile time grows with them. */
  schemas: 1_000,
  /** Schemas one event's schema expands to with every `$ref` followed: what judging one event may walk. */
  expanded: 10_000,
  /**
   * Values of one list ajv compiles value by value: an `enum` (checked distinct pairwise), a `required` or a
   * `dependencies` list of names (30,000 names of one dependency ran ajv out of memory).
   */
  listValues: 500,
  /** Values of every such list in the plan together. */
  planListValues: 2_000,
} as const;

/** Keywords whose value is one schema, a list of schemas, or a map of schemas (JSON Schema drafts 7 to 2020-12). */
const ONE_SCHEMA = ["not", "if", "then", "else", "additionalItems", "contains", "additionalProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties"];
const SCHEMA_LIST = ["allOf", "anyOf", "oneOf", "prefixItems"];
const SCHEMA_MAP = ["properties", "patternProperties", "dependentSchemas", "dependencies"];
/** Schemas kept to be referenced: checked like the rest, but applied to an event only through a `$ref`. */
const DEFINITIONS = ["definitions", "$defs"];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isSchema = (v: unknown): boolean => isObject(v) || typeof v === "boolean";
const escapeSegment = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

/** From a schema place to one below it (`applies`), one it `$ref`s, or one of its `$defs` (held, not applied). */
interface Edge {
  to: string;
  kind: "applies" | "ref" | "holds";
}

/** One event's schema as a graph: each schema place (a JSON pointer) and its edges. */
interface SchemaGraph {
  edges: Map<string, Edge[]>;
}

/** Refuses a plan past PLAN_LIMITS, or with a `$ref` this server cannot follow safely; a 400 naming the place. */
export function requirePlanWithinBounds(events: Record<string, unknown>): void {
  const names = Object.keys(events);
  if (names.length > PLAN_LIMITS.events) throw fail.invalid("events", `A tracking plan names at most ${PLAN_LIMITS.events} events; this one names ${names.length}.`);
  let schemas = 0;
  const listed = { values: 0 };
  for (const name of names) {
    const graph = schemaGraph(events[name], `events__${name}`, listed);
    schemas += graph.edges.size;
    if (schemas > PLAN_LIMITS.schemas) throw tooManySchemas();
    requireFiniteExpansion(graph, `events__${name}`);
  }
}

const tooManySchemas = () => fail.invalid("events", `A tracking plan holds at most ${PLAN_LIMITS.schemas} schemas; this one holds more.`);

/** How many values the schema's value-by-value lists hold; one past PLAN_LIMITS.listValues is a 400 naming it. */
function listedValues(schema: Json, pointer: string, base: string): number {
  const lists: [string[], unknown][] = [
    [["enum"], schema.enum],
    [["required"], schema.required],
    ...["dependencies", "dependentRequired"].flatMap((k) => (isObject(schema[k]) ? Object.entries(schema[k] as Json).map(([key, v]): [string[], unknown] => [[k, key], v]) : [])),
  ];
  let total = 0;
  for (const [path, list] of lists) {
    if (!Array.isArray(list)) continue;
    if (list.length > PLAN_LIMITS.listValues) {
      const attr = attrOf(base, [pointer, ...path.map(escapeSegment)].join("/"));
      throw fail.invalid(attr, `A tracking plan's ${path[0]} list holds at most ${PLAN_LIMITS.listValues} values; this one holds ${list.length}.`);
    }
    total += list.length;
  }
  return total;
}

/** The place `pointer` names in an attr: `events__signup__properties__price`. */
const attrOf = (base: string, pointer: string) => base + pointer.split("/").slice(1).map((s) => `__${s.replace(/~1/g, "/").replace(/~0/g, "~")}`).join("");

/** Every schema place reachable from the root, by keyword or `$ref`; iterative, so any nesting is safe. */
function schemaGraph(root: unknown, base: string, listed: { values: number }): SchemaGraph {
  const edges: SchemaGraph["edges"] = new Map();
  const pending = [""];
  while (pending.length > 0) {
    const pointer = pending.pop()!;
    if (edges.has(pointer)) continue;
    const schema = resolvePointer(root, pointer);
    const out = isObject(schema) ? subschemasOf(schema, pointer, base, root) : [];
    if (isObject(schema)) listed.values += listedValues(schema, pointer, base);
    if (listed.values > PLAN_LIMITS.planListValues) {
      throw fail.invalid("events", `A tracking plan's enum, required and dependencies lists hold at most ${PLAN_LIMITS.planListValues} values together; this one holds more.`);
    }
    edges.set(pointer, out);
    if (edges.size > PLAN_LIMITS.schemas) throw tooManySchemas();
    for (const edge of out) pending.push(edge.to);
  }
  return { edges };
}

function subschemasOf(schema: Json, pointer: string, base: string, root: unknown): Edge[] {
  const at = (...segments: (string | number)[]) => [pointer, ...segments.map((s) => escapeSegment(String(s)))].join("/");
  const out: Edge[] = [];
  const mapped = (keys: string[], kind: Edge["kind"]) => {
    for (const k of keys) if (isObject(schema[k])) for (const [key, s] of Object.entries(schema[k] as Json)) if (isSchema(s)) out.push({ to: at(k, key), kind });
  };
  for (const k of ONE_SCHEMA) if (isSchema(schema[k])) out.push({ to: at(k), kind: "applies" });
  for (const k of SCHEMA_LIST) if (Array.isArray(schema[k])) (schema[k] as unknown[]).forEach((s, i) => isSchema(s) && out.push({ to: at(k, i), kind: "applies" }));
  mapped(SCHEMA_MAP, "applies");
  mapped(DEFINITIONS, "holds");
  if (Array.isArray(schema.items)) schema.items.forEach((s, i) => isSchema(s) && out.push({ to: at("items", i), kind: "applies" }));
  else if (isSchema(schema.items)) out.push({ to: at("items"), kind: "applies" });
  if (pointer !== "" && "$id" in schema) {
    throw fail.invalid(attrOf(base, at("$id")), "An `$id` inside a plan's schema changes what its `$ref`s point at; each event's schema stands alone (set `$id` on its root only).");
  }
  if (schema.$ref !== undefined) out.push({ to: refTarget(schema.$ref, root, attrOf(base, at("$ref"))), kind: "ref" });
  return out;
}

/** A `$ref` as the pointer it names: only places inside the same schema (`#`, `#/$defs/price`), and they must exist. */
function refTarget(ref: unknown, root: unknown, attr: string): string {
  if (typeof ref !== "string" || (ref !== "#" && !ref.startsWith("#/"))) {
    throw fail.invalid(attr, `A $ref in a tracking plan points inside the same schema ("#" or "#/…"); ${JSON.stringify(ref)} does not.`);
  }
  let segments: string[];
  try {
    segments = ref === "#" ? [] : ref.slice(2).split("/").map((s) => decodeURIComponent(s).replace(/~1/g, "/").replace(/~0/g, "~"));
  } catch {
    throw fail.invalid(attr, `The $ref ${JSON.stringify(ref)} is not a valid JSON pointer.`);
  }
  const pointer = segments.map((s) => `/${escapeSegment(s)}`).join("");
  if (!isSchema(resolvePointer(root, pointer))) throw fail.invalid(attr, `The $ref ${JSON.stringify(ref)} points at no schema.`);
  return pointer;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof node !== "object" || node === null || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** What judging an event walks from each place: its subschemas and its `$ref`, not its `$defs` (reached by `$ref` only). */
const appliedEdges = (graph: SchemaGraph): Map<string, Edge[]> => new Map([...graph.edges].map(([at, edges]) => [at, edges.filter((e) => e.kind !== "holds")]));

/**
 * No `$ref` leads back to a place it is reached from (a recursive schema: `{"$ref": "#"}` never ends, one that
 * recurses through `properties` ends only with the event), and the schema, every `$ref` followed, has at most
 * PLAN_LIMITS.expanded places (a chain of `$defs` each naming the next twice doubles at every link).
 * Depth first without recursion; sizes are counted once per place, bottom up.
 */
function requireFiniteExpansion(graph: SchemaGraph, base: string): void {
  const applied = appliedEdges(graph);
  const size = new Map<string, number>();
  const onPath = new Set<string>([""]);
  const path: { at: string; next: number }[] = [{ at: "", next: 0 }];
  while (path.length > 0) {
    const top = path[path.length - 1]!;
    const edge = applied.get(top.at)![top.next++];
    if (edge === undefined) {
      const total = 1 + applied.get(top.at)!.reduce((sum, e) => sum + size.get(e.to)!, 0);
      if (total > PLAN_LIMITS.expanded) throw fail.invalid(base, `This schema expands to more than ${PLAN_LIMITS.expanded} schemas when its $refs are followed.`);
      size.set(top.at, total);
      onPath.delete(top.at);
      path.pop();
    } else if (onPath.has(edge.to)) {
      throw fail.invalid(attrOf(base, `${top.at}/$ref`), `The $ref at "#${top.at}/$ref" leads back to "#${edge.to}": recursive schemas are not accepted in a tracking plan.`);
    } else if (!size.has(edge.to)) {
      onPath.add(edge.to);
      path.push({ at: edge.to, next: 0 });
    }
  }
}
