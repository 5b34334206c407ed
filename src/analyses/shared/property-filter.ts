import type { ResolvedCohort, EventRecord, PersonRecord } from "../../store/schema.ts";
import type { FilterContext } from "./context.ts";
import { decodeJsonish, isObject, type Loose } from "./filter-read.ts";
import { groupLookup, groupPropertiesOf, groupTypeIndexOf } from "./groups.ts";
import { compileOperator } from "./property-operators.ts";
import { eventProperty } from "../../core/event-read.ts";
import { hogqlPredicate } from "./hogql-filter.ts";
import { personPropertyValue } from "../../core/person-property-read.ts";
import { sessionPropertyReader } from "./session-properties.ts";

/**
 * Property filters (reference: analytics §1.4): flat lists (AND) and nested AND/OR groups of event,
 * person, group, session, cohort and HogQL filters, compiled once into closures. Filters that cannot be parsed, and
 * types this mock does not model (element), are ignored, i.e. true.
 */
export type RowPredicate = (event: EventRecord | undefined, person: PersonRecord | undefined) => boolean;

export interface Subject {
  event?: EventRecord;
  person?: PersonRecord;
}

/** The constant "no filter"; callers compare against it to skip work. */
export const ALWAYS: RowPredicate = () => true;

/**
 * What a compiled predicate tests, for scans that evaluate it per value instead of per row (column counts): an
 * AND/OR of leaves that read one event property (`key`), or the person alone (person properties, cohorts). Each
 * node keeps its own predicate, so a reader evaluates exactly the filter's semantics. `sig` names what an event
 * condition decides (equal signatures, equal verdicts on every value), so verdicts per value can be kept.
 */
export type FilterTree =
  | { kind: "and" | "or"; of: FilterTree[]; sig?: string; test: RowPredicate }
  | { kind: "event"; key: string; sig?: string; test: RowPredicate }
  | { kind: "person"; test: RowPredicate };

/** Trees of the predicates compiled here; a predicate without one (group filters, action steps) is opaque. */
const trees = new WeakMap<RowPredicate, FilterTree>();

/** The structure of a predicate compiled by this module, or undefined when it reads something else. */
export const filterTreeOf = (predicate: RowPredicate): FilterTree | undefined => trees.get(predicate);

/** A tree node without its predicate (the predicate it describes supplies it). */
type TreeShape = FilterTree extends infer T ? (T extends FilterTree ? Omit<T, "test"> : never) : never;

const described = (test: RowPredicate, tree: TreeShape | undefined): RowPredicate => {
  if (tree) trees.set(test, { ...tree, test } as FilterTree);
  return test;
};

/** The group's tree when every child has one. */
function groupTree(kind: "and" | "or", children: RowPredicate[]): TreeShape | undefined {
  const of = children.map(filterTreeOf);
  if (!of.every((t) => t !== undefined)) return undefined;
  const sigs = of.map((t) => (t.kind === "person" ? undefined : t.sig));
  return sigs.every((sig) => sig !== undefined) ? { kind, of, sig: `${kind}(${sigs.join(",")})` } : { kind, of };
}
trees.set(ALWAYS, { kind: "and", of: [], test: ALWAYS });

const COHORT_TYPES = new Set(["cohort", "precalculated-cohort", "static-cohort"]);

/** For the persons and events lists too: one predicate over an event and/or a person. */
export function compilePropertyFilters(filters: unknown, ctx: FilterContext, attr = "properties"): (subject: Subject) => boolean {
  const predicate = compileRowPredicate(filters, ctx, attr);
  return (subject) => predicate(subject.event, subject.person);
}

export function compileRowPredicate(filters: unknown, ctx: FilterContext, attr = "properties"): RowPredicate {
  const node = decodeJsonish(filters, attr);
  if (Array.isArray(node)) return all(node.map((child) => compileRowPredicate(child, ctx, attr)));
  if (!isObject(node)) return ALWAYS;
  if (Array.isArray(node.values) && (node.type === "AND" || node.type === "OR")) return compileGroup(node, ctx, attr);
  return compileFilter(node, ctx, attr);
}

function compileGroup(group: Loose, ctx: FilterContext, attr: string): RowPredicate {
  const children = (group.values as unknown[]).map((child) => compileRowPredicate(child, ctx, attr));
  return group.type === "OR" ? any(children) : all(children);
}

/** AND of predicates, dropping the no-ops. */
export function all(predicates: RowPredicate[]): RowPredicate {
  const active = predicates.filter((p) => p !== ALWAYS);
  if (active.length === 0) return ALWAYS;
  if (active.length === 1) return active[0]!;
  const test: RowPredicate = (event, person) => {
    for (const p of active) if (!p(event, person)) return false;
    return true;
  };
  return described(test, groupTree("and", active));
}

/** OR of predicates; an empty OR group is no filter, and a no-op child makes the whole group true. */
function any(predicates: RowPredicate[]): RowPredicate {
  if (predicates.length === 0 || predicates.includes(ALWAYS)) return ALWAYS;
  const test: RowPredicate = (event, person) => {
    for (const p of predicates) if (p(event, person)) return true;
    return false;
  };
  return described(test, groupTree("or", predicates));
}

function compileFilter(filter: Loose, ctx: FilterContext, attr: string): RowPredicate {
  const type = typeof filter.type === "string" ? filter.type : "event";
  if (COHORT_TYPES.has(type)) return described(compileCohort(filter, ctx.cohorts), { kind: "person" });
  if (type === "hogql") return typeof filter.key === "string" ? hogqlPredicate(filter.key, attr, ctx) : ALWAYS;
  if ((type !== "event" && type !== "person" && type !== "group" && type !== "event_metadata" && type !== "session") || typeof filter.key !== "string") return ALWAYS;
  const operator = typeof filter.operator === "string" ? filter.operator : "exact";
  const valueTest = compileOperator(operator, filter.value, ctx, attr);
  if (!valueTest) return ALWAYS;
  const key = filter.key;
  const { test, missing } = valueTest;
  if (type === "group") {
    // The properties of the event's group of group_type_index (its current ones); a filter without an index is ignored.
    const index = groupTypeIndexOf(filter.group_type_index);
    if (index === undefined) return ALWAYS;
    const propsOf = groupPropertiesOf(groupLookup(ctx.groups), index);
    return (event) => {
      const value = propsOf(event)?.[key];
      return value === undefined || value === null ? missing : test(value);
    };
  }
  if (type === "session") return sessionFilter(key, ctx, test, missing);
  if (type === "event_metadata") {
    // A column of the event row (PostHog test_trends_event_metadata_filter_group); opaque to the column kernels.
    const read = metadataReader(key, ctx);
    return (event) => {
      const value = event === undefined ? undefined : read(event);
      return value === undefined || value === null || value === "" ? missing : test(value);
    };
  }
  if (type === "person") {
    return described((_event, person) => {
      const value = personPropertyValue(person, key);
      return value === undefined || value === null ? missing : test(value);
    }, { kind: "person" });
  }
  return described((event) => {
    const value = event === undefined ? undefined : eventProperty(event, key);
    return value === undefined || value === null ? missing : test(value);
  }, { kind: "event", key, sig: signature(key, operator, filter.value, ctx) });
}

/**
 * A session property of the event's session (src/analyses/shared/session-properties.ts), opaque to the column
 * kernels. Without the project's sessions in the context (the persons and events lists), or for a key that is no
 * session property, the filter is ignored.
 */
function sessionFilter(key: string, ctx: FilterContext, test: (value: unknown) => boolean, missing: boolean): RowPredicate {
  const read = ctx.sessions ? sessionPropertyReader(key, ctx.sessions) : undefined;
  if (!read) return ALWAYS;
  return (event) => {
    const value = event === undefined ? undefined : read(event);
    return value === undefined || value === null ? missing : test(value);
  };
}

/** An event_metadata key: the event's name, distinct id, time or elements chain, or its group key of `$group_N`; else its property. */
export function metadataReader(key: string, ctx: Pick<FilterContext, "groups">): (event: EventRecord) => unknown {
  if (key === "event") return (event) => event.event;
  if (key === "distinct_id") return (event) => event.distinct_id;
  if (key === "elements_chain") return (event) => event.elements_chain;
  if (key === "timestamp") return (event) => new Date(event.timestamp).toISOString();
  const group = /^\$group_([0-4])$/.exec(key);
  if (group) return groupLookup(ctx.groups).keyOf(Number(group[1]));
  return (event) => eventProperty(event, key);
}

/**
 * An event condition's signature: its key, operator and value, and the clock where the operator reads it (dates).
 * None when the value holds something JSON cannot tell apart (undefined reads as null, yet compares differently).
 */
function signature(key: string, operator: string, value: unknown, ctx: FilterContext): string | undefined {
  let exact = true;
  const text = JSON.stringify([key, operator, value, operator.startsWith("is_date_") ? [ctx.now, ctx.timezone] : null], (_k, v: unknown) => {
    if (v !== undefined && typeof v !== "function" && typeof v !== "symbol" && typeof v !== "bigint") return v;
    exact = false;
    return null;
  });
  return exact ? text : undefined;
}

/** Cohort membership of the attributed person; `not_in` or `negation` negates; an unknown cohort has no members. */
function compileCohort(filter: Loose, cohorts: readonly ResolvedCohort[]): RowPredicate {
  const id = Number(Array.isArray(filter.value) ? filter.value[0] : filter.value);
  const cohort = cohorts.find((c) => c.id === id);
  const members = new Set(cohort?.person_ids ?? []);
  const negate = filter.operator === "not_in" || filter.negation === true;
  return (_event, person) => (person !== undefined && members.has(person.id)) !== negate;
}

/** Members of a cohort as a Set of person ids (breakdowns reuse it). */
export function cohortMembers(cohorts: readonly ResolvedCohort[], id: number): Set<number> | undefined {
  const cohort = cohorts.find((c) => c.id === id);
  return cohort ? new Set(cohort.person_ids) : undefined;
}
