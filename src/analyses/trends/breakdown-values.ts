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
  /** "rank": top values by total with an "other" item; "fixed": the order of `order` (cohorts, bins). */
  ordering: "rank" | "fixed";
  order?: (a: string, b: string) => number;
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
    const position = new Map(def.cohorts.map((c, i) => [String(c.value), i]));
    return {
      keyOf: (_event, actor) => def.cohorts.filter((c) => cohortHas(c, actor.person)).map((c) => String(c.value)),
      present: (key) => ({ value: labels.get(key)!.value, label: labels.get(key)!.label }),
      ordering: "fixed",
      order: (a, b) => position.get(a)! - position.get(b)!,
    };
  }
  const [first] = def.parts;
  if (def.histogramBins !== undefined && first) return histogramKeying(first, def.histogramBins, source);
  if (def.multi) {
    return {
      keyOf: (event, actor) => JSON.stringify(def.parts.map((p) => partValue(p, event, actor.person) ?? BREAKDOWN_NULL)),
      present: (key) => {
        const values = JSON.parse(key) as string[];
        return { value: values, label: values.join("::") };
      },
      ordering: "rank",
    };
  }
  const part = first!;
  return { keyOf: (event, actor) => partValue(part, event, actor.person) ?? BREAKDOWN_NULL, present: (key) => ({ value: key, label: key }), ordering: "rank" };
}

const minimal = (n: number): string => String(Math.round(n * 100) / 100);

/**
 * Equal-width bins over [min, max] of the values in range; the last bin ends at max + 0.01 (§2.5).
 * Labels are made for the bins that hold a value only: empty bins never appear, and the bin count
 * is unbounded (a huge count must not allocate one label per bin).
 */
function histogramKeying(part: PropertyPart, binCount: number, source: ScanSource): Keying {
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
  const lowerBin = new Map<string, number>();
  // One label per bin that holds a value, made on first use (not per event: building strings dominated the scan).
  const labels = new Map<number, string>();
  const labelOf = (bin: number) => {
    const known = labels.get(bin);
    if (known !== undefined) return known;
    const label = `[${minimal(min + bin * width)},${minimal(bin === binCount - 1 ? max + 0.01 : min + (bin + 1) * width)}]`;
    lowerBin.set(label, Math.min(bin, lowerBin.get(label) ?? Infinity));
    labels.set(bin, label);
    return label;
  };
  return {
    keyOf: (event, actor) => {
      const n = numericForm(partValue(part, event, actor.person));
      if (Number.isNaN(n)) return BREAKDOWN_NULL;
      return labelOf(width > 0 ? Math.min(binCount - 1, Math.floor((n - min) / width)) : 0);
    },
    present: (key) => ({ value: key, label: key }),
    ordering: "fixed",
    order: (a, b) => (lowerBin.get(a) ?? Infinity) - (lowerBin.get(b) ?? Infinity),
  };
}

/**
 * Top values: ranked by total (descending, ties by value ascending), the first `limit` kept; the others
 * become one "other" item. Display order: regular values, then null, then other (§2.5, §11 item 5).
 */
export function rankKeys(totals: Map<string, number>, keying: Keying, limit: number): { keep: string[]; other: boolean } {
  const keys = [...totals.keys()].filter((k) => totals.get(k) !== 0);
  if (keying.ordering === "fixed") return { keep: keys.sort(keying.order), other: false };
  const ranked = keys.sort((a, b) => totals.get(b)! - totals.get(a)! || (a < b ? -1 : a > b ? 1 : 0));
  const keep = ranked.slice(0, limit);
  const displayed = [...keep.filter((k) => k !== BREAKDOWN_NULL), ...keep.filter((k) => k === BREAKDOWN_NULL)];
  return { keep: displayed, other: ranked.length > limit };
}

export { BREAKDOWN_OTHER };
