import type { EventList, EventRecord } from "../../store/schema.ts";
import type { Actor, ActorOf } from "../shared/actors.ts";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, cohortHas, partValue, type BreakdownDef, type PropertyPart } from "../shared/breakdown.ts";
import type { EventMatcher } from "../shared/entity-match.ts";
import { numericForm } from "../shared/property-operators.ts";
import { forEachMatch } from "../shared/scan.ts";

/**
 * Trend breakdown keys (reference: analytics §2.5): one string key per event (a list for cohorts), the
 * null bucket for missing/null/"" values, equal-width histogram bins, and the presentation of a key
 * as breakdown_value + label.
 */
export type BreakdownKey = string | readonly string[] | null;

export interface Keying {
  keyOf: (event: EventRecord, actor: Actor) => BreakdownKey;
  present: (key: string) => { value: string | number | string[]; label: string };
  /** "rank": top values by total with an "other" item; "fixed": every value by total, ties in the order of `order` (cohorts). */
  ordering: "rank" | "fixed";
  order?: (a: string, b: string) => number;
  /** "rank": which of the kept values show first (default: the null value after the others). */
  display?: (a: string, b: string) => number;
  /** "rank": the order of values with equal totals (default: the keys' text ascending). */
  tie?: (a: string, b: string) => number;
  /** The "other" item's value and label: a one-item list with a breakdowns list. */
  other: { value: string | string[]; label: string };
}

export interface ScanSource {
  events: EventList;
  range: { from: number; to: number };
  matcher: EventMatcher;
  actorOf: ActorOf;
}

export function keyingFor(def: BreakdownDef, source: ScanSource): Keying {
  if (def.kind === "cohort") {
    const labels = new Map(def.cohorts.map((c) => [String(c.value), c]));
    // Ties go by breakdown value ascending, where "all users" is cohort 0 (PostHog orders the rows by total, then value).
    const idOf = (key: string) => (key === "all" ? 0 : Number(key));
    return {
      keyOf: (_event, actor) => def.cohorts.filter((c) => cohortHas(c, actor.person)).map((c) => String(c.value)),
      present: (key) => ({ value: labels.get(key)!.value, label: labels.get(key)!.label }),
      ordering: "fixed",
      order: (a, b) => idOf(a) - idOf(b),
      other: OTHER_ITEM,
    };
  }
  const [first] = def.parts;
  if (def.histogramBins !== undefined && first) return histogramKeying(first, def.histogramBins, source);
  if (def.multi) return multiKeying(def.parts, source);
  const part = first!;
  return { keyOf: (event, actor) => partValue(part, event, actor.person) ?? BREAKDOWN_NULL, present: (key) => ({ value: key, label: key }), ordering: "rank", other: OTHER_ITEM };
}

const OTHER_ITEM = { value: BREAKDOWN_OTHER, label: BREAKDOWN_OTHER };

/**
 * A breakdowns list: per event the list of its parts' values (a part with histogram_bin_count gives its bin),
 * ranked by total like one value, after every list without the null placeholder (PostHog's
 * `if(has(breakdown_value, nil), 1, 0)` ordering; test_trends_event_with_two_group_breakdowns).
 */
function multiKeying(parts: readonly PropertyPart[], source: ScanSource): Keying {
  const readers = parts.map((part): ((event: EventRecord, actor: Actor) => string | null) =>
    part.bins !== undefined ? histogramBins(part, part.bins, source).binOf : (event, actor) => partValue(part, event, actor.person),
  );
  const hasNull = (key: string): number => ((JSON.parse(key) as string[]).includes(BREAKDOWN_NULL) ? 1 : 0);
  return {
    keyOf: (event, actor) => JSON.stringify(readers.map((read) => read(event, actor) ?? BREAKDOWN_NULL)),
    present: (key) => {
      const values = JSON.parse(key) as string[];
      return { value: values, label: values.join("::") };
    },
    ordering: "rank",
    display: (a, b) => hasNull(a) - hasNull(b),
    // ClickHouse compares the value lists element by element (ORDER BY … breakdown_value ASC), not as JSON text.
    tie: (a, b) => compareLists(JSON.parse(a) as string[], JSON.parse(b) as string[]),
    // One "other" per part (PostHog test_trends.py::test_multiple_breakdowns_label_formatting).
    other: { value: parts.map(() => BREAKDOWN_OTHER), label: parts.map(() => BREAKDOWN_OTHER).join("::") },
  };
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Lexicographic order of two lists of texts: the first unequal element decides, a shorter prefix first. */
function compareLists(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const order = compareText(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

const minimal = (n: number): string => String(Math.round(n * 100) / 100);

/**
 * Equal-width bins over [min, max] of the values in range; the last bin ends at max + 0.01 (§2.5), and when every
 * value is the same they all fall in it ([4,4.01], PostHog test_trends_event_breakdowns_handle_null).
 * Labels are made for the bins that hold a value only: empty bins never appear, and the bin count
 * is unbounded (a huge count must not allocate one label per bin).
 */
function histogramBins(part: PropertyPart, binCount: number, source: ScanSource): { binOf: (event: EventRecord, actor: Actor) => string | null } {
  let min = Infinity;
  let max = -Infinity;
  forEachMatch(
    source.events,
    source.range,
    source.matcher,
    source.actorOf,
    (event, actor) => {
      const n = numericForm(partValue(part, event, actor.person));
      if (!Number.isNaN(n)) [min, max] = [Math.min(min, n), Math.max(max, n)];
    },
    true,
  );
  const width = (max - min) / binCount;
  // One label per bin that holds a value, made on first use (not per event: building strings dominated the scan).
  const labels = new Map<number, string>();
  const labelOf = (bin: number) => {
    const known = labels.get(bin);
    if (known !== undefined) return known;
    const label = `[${minimal(min + bin * width)},${minimal(bin === binCount - 1 ? max + 0.01 : min + (bin + 1) * width)}]`;
    labels.set(bin, label);
    return label;
  };
  const binOf = (event: EventRecord, actor: Actor) => {
    const n = numericForm(partValue(part, event, actor.person));
    if (Number.isNaN(n)) return null;
    return labelOf(width > 0 ? Math.min(binCount - 1, Math.floor((n - min) / width)) : binCount - 1);
  };
  return { binOf };
}

/** Bins are ranked by total like values (PostHog test_unique_session_with_session_breakdown: [10,15.01] first). */
function histogramKeying(part: PropertyPart, binCount: number, source: ScanSource): Keying {
  const { binOf } = histogramBins(part, binCount, source);
  return { keyOf: (event, actor) => binOf(event, actor) ?? BREAKDOWN_NULL, present: (key) => ({ value: key, label: key }), ordering: "rank", other: OTHER_ITEM };
}

/** One value: the null value ranks after every other, whatever its total (`breakdown_value = nil ? 1 : 0`). */
const nullLast = (a: string, b: string): number => (a === BREAKDOWN_NULL ? 1 : 0) - (b === BREAKDOWN_NULL ? 1 : 0);

/**
 * Top values: the null value (a breakdowns list holding it) after the others, then by total (descending, ties by
 * value ascending); the first `limit` kept, the others one "other" item shown last (§2.5, §11 item 5; PostHog
 * test_trends_event_multiple_numeric_breakdowns_into_bins).
 */
export function rankKeys(totals: Map<string, number>, keying: Keying, limit: number): { keep: string[]; other: boolean } {
  const keys = [...totals.keys()];
  // Cohorts: every one is kept, the largest first (PostHog test_trends.py::test_breakdown_multiple_cohorts).
  if (keying.ordering === "fixed") return { keep: keys.sort((a, b) => totals.get(b)! - totals.get(a)! || keying.order!(a, b)), other: false };
  const display = keying.display ?? nullLast;
  const tie = keying.tie ?? compareText;
  // PostHog's trends query orders rows by its null/other placement, the total descending, then breakdown_value
  // ascending (posthog/hogql_queries/insights/trends/trends_query_builder.py, _outer_select_query's ORDER BY).
  const ranked = keys.sort((a, b) => display(a, b) || totals.get(b)! - totals.get(a)! || tie(a, b));
  return { keep: ranked.slice(0, limit), other: ranked.length > limit };
}

export { BREAKDOWN_OTHER };
