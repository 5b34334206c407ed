import { reject } from "../../core/analysis-errors.ts";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type BreakdownDef } from "../shared/breakdown.ts";
import type { TrendSpec } from "../trends/filter.ts";
import { sameValue } from "./point.ts";

/**
 * How an InsightActorsQuery's breakdown value picks a trend's events, as PostHog's actors query filters them
 * (posthog/hogql_queries/insights/trends/breakdown.py, the actors where-filter): a value by the events that carry
 * it, whether or not the breakdown limit folds it into "other" in the chart (test_trends_persons.py::
 * test_trends_breakdown_by_boolean); a histogram bin `[a,b]` by the values from a up to b, either end open when ""
 * (test_trends_breakdown_filter_by_range); "other" as the chart's other row.
 */
export interface AskedBreakdown {
  /** The spec the rows are computed with: every value its own row, histogram values unbinned. */
  spec: TrendSpec;
  /** Whether a computed row's value is asked. */
  isAsked: (value: unknown) => boolean;
  /** A bin is matched against unbinned values, which the column kernels do not count: the general scan answers. */
  scanOnly: boolean;
}

const hasBins = (def: BreakdownDef | undefined): boolean => def?.kind === "property" && (def.histogramBins !== undefined || def.parts.some((p) => p.bins !== undefined));

const withoutBins = (def: BreakdownDef): BreakdownDef => (def.kind === "property" ? { ...def, histogramBins: undefined, parts: def.parts.map(({ bins: _bins, ...part }) => part) } : def);

/** A breakdowns list's value of one part is asked by that part alone. */
const onePart = (value: unknown): unknown => (Array.isArray(value) && value.length === 1 ? value[0] : value);

/** `[a,b]` as bounds (undefined = open); anything else is refused, as PostHog refuses it (a ValueError). */
function binBounds(asked: string): [number | undefined, number | undefined] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(asked);
  } catch {
    parsed = undefined;
  }
  const bound = (v: unknown) => (v === "" ? undefined : typeof v === "number" ? v : Number.NaN);
  const bounds = Array.isArray(parsed) && parsed.length === 2 ? parsed.map(bound) : [Number.NaN];
  if (bounds.some((b) => Number.isNaN(b))) throw reject.invalid("breakdown_value", `"${asked}" is not a histogram bin: give [from,to] with valid float or int values ("" for an open end).`);
  return bounds as [number | undefined, number | undefined];
}

function inBin(value: unknown, [from, to]: [number | undefined, number | undefined]): boolean {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  return !Number.isNaN(n) && (from === undefined || n >= from) && (to === undefined || n < to);
}

/** "Other", alone or as a part of a breakdowns list's value (a list's value travels as its JSON text). */
function namesOther(asked: string): boolean {
  if (asked === BREAKDOWN_OTHER) return true;
  try {
    const parts: unknown = JSON.parse(asked);
    return Array.isArray(parts) && parts.includes(BREAKDOWN_OTHER);
  } catch {
    return false;
  }
}

/** The asked value's parts: a breakdowns list of several parts is asked by its values' JSON text. */
function askedParts(def: BreakdownDef, asked: string): string[] {
  if (def.kind !== "property" || def.parts.length < 2) return [asked];
  try {
    const parts: unknown = JSON.parse(asked);
    if (Array.isArray(parts) && parts.length === def.parts.length) return parts.map((p) => (typeof p === "string" ? p : JSON.stringify(p)));
  } catch {
    // Not a list: asked as it is, matching no row of several parts.
  }
  return [asked];
}

/** Whether part `i` of the breakdown is binned (a histogram). */
const binnedPart = (def: BreakdownDef, i: number): boolean => def.kind === "property" && (def.histogramBins !== undefined || def.parts[i]?.bins !== undefined);

/** The test of one part: a bin's range over the unbinned value, else the value itself. */
function partTest(def: BreakdownDef, i: number, asked: string): (value: unknown) => boolean {
  if (!binnedPart(def, i) || asked === BREAKDOWN_NULL) return (value) => sameValue(value, asked);
  const bounds = binBounds(asked);
  // Both ends open: no filter at all, events without the property included (test_trends_breakdown_filter_by_range).
  if (bounds[0] === undefined && bounds[1] === undefined) return () => true;
  return (value) => inBin(value, bounds);
}

/** The rows' spec and test for an asked breakdown value (undefined: every row; "other": the chart's own rows). */
export function askedBreakdown(spec: TrendSpec, asked: string | undefined): AskedBreakdown {
  const exact = (value: unknown) => asked !== undefined && (sameValue(value, asked) || sameValue(onePart(value), asked));
  if (asked === undefined || namesOther(asked) || !spec.breakdown) return { spec, isAsked: (v) => asked === undefined || exact(v), scanOnly: false };
  const unlimited = { ...spec, breakdownLimit: Infinity };
  if (!hasBins(spec.breakdown)) return { spec: unlimited, isAsked: exact, scanOnly: false };
  const def = spec.breakdown;
  const tests = askedParts(def, asked).map((part, i) => partTest(def, i, part));
  const isAsked = (value: unknown) => {
    const values = tests.length > 1 && Array.isArray(value) ? value : [onePart(value)];
    return values.length === tests.length && tests.every((test, i) => test(values[i]));
  };
  return { spec: { ...unlimited, breakdown: withoutBins(def) }, isAsked, scanOnly: true };
}
