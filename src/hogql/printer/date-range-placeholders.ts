import { reject } from "../../core/analysis-errors.ts";
import { readDateField, type TimeContext } from "../../core/date-parse.ts";
import type { HogqlNode } from "./ast.ts";

/** HogQLFilters' date range as a HogQLQuery's `filters` carries it. */
export interface DateRangeFilters {
  dateRange?: { date_from?: string | null; date_to?: string | null } | null;
}

type Bound = "from" | "to";

/** One comparison being rewritten: an unset bound inside it makes the whole comparison a no-op. */
interface Frame {
  skip: boolean;
}

/** What an unset bound's comparison becomes: `true = true`, as the real printer writes it. */
const NO_OP: HogqlNode = { node: "CompareOperation", op: "==", left: { node: "Constant", value: true }, right: { node: "Constant", value: true } };

/**
 * Replaces `{filters.dateRange.from}` and `{filters.dateRange.to}` (PostHog `posthog/hogql/filters.py`,
 * ReplaceFilters): a set bound becomes its instant (a bare date is midnight in the project's zone, `-7d` is
 * exactly seven days before now, `date_from: all` is unset); an unset bound, or no `filters` at all, turns the
 * comparison around the placeholder into `true = true`, and outside any comparison it is refused. Other
 * placeholders (`{filters}`, `{variables.x}`) are left for the printer. One rewrite for both engines: the SQL
 * printer and the in-process evaluator call it, so the same text filters the same events.
 */
export function replaceDateRangePlaceholders(node: HogqlNode, filters: DateRangeFilters | null | undefined, time: TimeContext, attr: string): HogqlNode {
  const bounds = dateRangeBounds(filters, time);
  return rewrite(node, [], bounds, attr) as HogqlNode;
}

/**
 * Each bound's instant (epoch ms), or undefined when it is not set: a bare date is midnight in the project's zone,
 * `date_from: all` is no lower bound (filters.py: `dateFrom != "all"`). `{filters}` reads the range here too.
 */
export function dateRangeBounds(filters: DateRangeFilters | null | undefined, time: TimeContext): Record<Bound, number | undefined> {
  const range = (filters?.dateRange ?? {}) as Record<string, unknown>;
  const from = range.date_from === "all" ? undefined : readDateField(range, "date_from", time)?.ms;
  return { from, to: readDateField(range, "date_to", time)?.ms };
}

function rewrite(value: unknown, frames: Frame[], bounds: Record<Bound, number | undefined>, attr: string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewrite(v, frames, bounds, attr));
  if (value === null || typeof value !== "object") return value;
  const n = value as HogqlNode;
  if (n.node === "Placeholder") return placeholder(n, frames, bounds, attr);
  if (n.node === "CompareOperation") {
    const frame: Frame = { skip: false };
    const out = cloneWith(n, [...frames, frame], bounds, attr);
    return frame.skip ? NO_OP : out;
  }
  return cloneWith(n, frames, bounds, attr);
}

function cloneWith(n: HogqlNode, frames: Frame[], bounds: Record<Bound, number | undefined>, attr: string): HogqlNode {
  // Plain objects too (named windows, join constraints): copied key for key, nothing added.
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(n)) out[key] = rewrite(v, frames, bounds, attr);
  return out as HogqlNode;
}

function placeholder(n: HogqlNode, frames: Frame[], bounds: Record<Bound, number | undefined>, attr: string): HogqlNode {
  const inner = n.expr as HogqlNode | undefined;
  const chain = inner?.node === "Field" ? (inner.chain as unknown[]).map(String) : [];
  if (chain[0] !== "filters" || chain.length === 1) return n;
  const bound = chain.length === 3 && chain[1] === "dateRange" && (chain[2] === "from" || chain[2] === "to") ? (chain[2] as Bound) : undefined;
  // The refusals' words are filters.py's (ReplaceFilters.visit_placeholder, _skip_unbounded_date_placeholder).
  if (!bound) throw reject.invalid(attr, `Unsupported filters placeholder \`{${chain.join(".")}}\`. Supported filters placeholders are: \`{filters}\`, \`{filters.dateRange.from}\`, \`{filters.dateRange.to}\`.`);
  const ms = bounds[bound];
  if (ms !== undefined) return instantNode(ms);
  const frame = frames.at(-1);
  if (!frame) {
    const name = `{filters.dateRange.${bound}}`;
    throw reject.invalid(attr, `The \`${name}\` placeholder must be used directly in a comparison (e.g. \`timestamp > ${name}\`), not nested inside a function call, when the date range is not set.`);
  }
  frame.skip = true;
  return { node: "Constant", value: true };
}

/** An instant as HogQL's `toDateTime('…Z')`: the zone marker keeps it UTC where a bare text is read in the project's zone. */
export const instantNode = (ms: number): HogqlNode => ({ node: "Call", name: "toDateTime", args: [{ node: "Constant", value: new Date(ms).toISOString() }], params: null, distinct: false });
