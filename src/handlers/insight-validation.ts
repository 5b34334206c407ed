import { queryNodeToFilter } from "../analyses/query-node.ts";
import { requireDateFields } from "../analyses/shared/date-range.ts";
import { decodeJsonish } from "../analyses/shared/filter-read.ts";
import { asClientError, fail } from "../core/errors.ts";
import type { HandlerArgs } from "./types.ts";
import type { InsightInput } from "../store/store.ts";

type Filter = Record<string, unknown>;

/** The request schema of the analysis endpoint that computes each insight kind: a saved filter is checked against it. */
const FILTER_SCHEMA: Readonly<Record<string, string>> = {
  TRENDS: "TrendRequest",
  STICKINESS: "TrendRequest",
  LIFECYCLE: "TrendRequest",
  FUNNELS: "FunnelRequest",
  RETENTION: "RetentionRequest",
  PATHS: "PathRequest",
};

/** Kinds whose filter is computable without series (retention and paths have defaults for what they follow). */
const NO_SERIES_NEEDED = new Set(["RETENTION", "PATHS"]);

const hasSeries = (filter: Filter): boolean =>
  ["events", "actions"].some((key) => {
    const list = decodeJsonish(filter[key]);
    return Array.isArray(list) && list.length > 0;
  });

/**
 * A written insight's `filters` and `query` must be what the analysis endpoints accept (400 naming the field,
 * before anything is stored): a known kind, valid values for the keys the endpoints know, valid dates, and, when
 * the definition has series, a computable one. Keys the endpoints do not know are stored as they are, as the
 * real service stores them; query nodes the mock does not compute (DataTableNode, HogQLQuery, …) too.
 */
export async function requireValidDefinition(input: InsightInput, args: HandlerArgs, keep: Keep = "discard"): Promise<void> {
  if (input.filters !== undefined && Object.keys(input.filters).length > 0) await requireValidFilters(input.filters as Filter, args, keep);
  if (input.query) await requireValidQuery(input.query as Filter, args, keep);
}

/** "keep": the result computed to check a definition is the answer's (a PATCH shows it without computing again). */
type Keep = "keep" | "discard";

async function requireValidFilters(filters: Filter, args: HandlerArgs, keep: Keep): Promise<void> {
  const kind = filters.insight === undefined ? "TRENDS" : String(filters.insight).toUpperCase();
  if (!FILTER_SCHEMA[kind]) {
    throw fail.invalid("filters__insight", `${JSON.stringify(filters.insight)} is not an insight kind: one of ${Object.keys(FILTER_SCHEMA).join(", ")}.`);
  }
  args.deps.schemas.assertKnown(FILTER_SCHEMA[kind]!, filters.insight === undefined ? filters : { ...filters, insight: kind }, "filters");
  await underField("filters", (attr) => `filters__${attr}`, () => requireComputable(kind, filters, args, keep));
}

async function requireValidQuery(query: Filter, args: HandlerArgs, keep: Keep): Promise<void> {
  // The node's own schema first: a field the kind does not have is a 400 naming it, as at the query API.
  args.deps.schemas.assert(query.kind === "InsightVizNode" ? "InsightVizNode" : "InsightQueryNode", query, "query");
  let definition: { kind: string; filter: Filter };
  try {
    definition = queryNodeToFilter(query);
  } catch {
    return;
  }
  const { kind, filter } = definition;
  await underField("query", () => "query", () => {
    args.deps.schemas.assertKnown(FILTER_SCHEMA[kind]!, filter);
    return requireComputable(kind, filter, args, keep);
  });
}

async function requireComputable(kind: string, filter: Filter, args: HandlerArgs, keep: Keep): Promise<void> {
  const project = args.project;
  requireDateFields(filter, { now: args.deps.clock.now(), timezone: project.timezone, weekStartDay: project.week_start_day });
  if (NO_SERIES_NEEDED.has(kind) || hasSeries(filter)) await args.deps.analyses.check(project, kind, filter, keep === "keep");
}

/**
 * Runs `check`, reporting a rejection under the insight's field: `filters__events__0__math`; for a query, whose
 * fields have other names than the legacy filter the mock computes, `query` with the legacy field in the detail.
 */
async function underField(root: string, attrOf: (attr: string) => string, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (err) {
    const client = asClientError(err);
    if (!client) throw err;
    const { attr, detail, code } = client.body;
    if (attr === null) throw fail.invalid(root, detail, code);
    throw fail.invalid(attrOf(attr), root === "query" ? `${attr} (as a legacy filter): ${detail}` : detail, code);
  }
}
