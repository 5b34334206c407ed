import { reject } from "../../core/analysis-errors.ts";
import { readBreakdown, type BreakdownDef } from "../shared/breakdown.ts";
import type { AnalysisContext, Interval } from "../shared/context.ts";
import { INTERVALS } from "../shared/context.ts";
import { readNumber, readObjects, readString, type Loose } from "../shared/filter-read.ts";
import { entityFrom, mergeSeries, type SeriesEntity } from "../shared/series.ts";
import {
  checkExclusions,
  checkOptionalSteps,
  readFunnelAggregation,
  readHogqlAggregation,
  rejectUnknownAttributionStep,
  rejectUnknownStepRange,
  requireTwoSteps,
  type Exclusion,
} from "./validation.ts";

export type { Exclusion };

/** The legacy funnel filter JSON (reference: analytics §5.1); loose, read through FunnelSpec. */
export type FunnelFilter = Record<string, unknown>;

export const ORDER_TYPES = ["ordered", "strict", "unordered"] as const;

/**
 * Which events a funnel's journeys keep, for both engines: those that set a step or an exclusion, or, for strict
 * funnels, every event of the actor (any event between two steps breaks a strict attempt).
 */
export const keepsEveryEvent = (spec: Pick<FunnelSpec, "orderType">): boolean => spec.orderType === "strict";
export const VIZ_TYPES = ["steps", "trends", "time_to_convert"] as const;
export const ATTRIBUTIONS = ["first_touch", "last_touch", "all_events", "step"] as const;

export interface FunnelSpec {
  raw: Loose;
  steps: SeriesEntity[];
  orderType: (typeof ORDER_TYPES)[number];
  viz: (typeof VIZ_TYPES)[number];
  windowMs: number;
  exclusions: Exclusion[];
  /** 0-based, inclusive; default first and last step. */
  fromStep: number;
  toStep: number;
  interval: Interval;
  breakdown: BreakdownDef | undefined;
  breakdownLimit: number;
  attribution: (typeof ATTRIBUTIONS)[number];
  attributionStep: number;
  binCount: number | undefined;
  /** Group type whose groups are the actors (aggregation_group_type_index 0–4); undefined = persons. */
  groupIndex: number | undefined;
  /** The HogQL expression whose values are the actors (funnel_aggregate_by_hogql); undefined = persons or groups. */
  hogqlActor: string | undefined;
  /** Bit k set when step k is optional (its series' `optionalInFunnel`); 0 without optional steps. */
  optional: number;
}

/** Reads a funnel filter and applies the validation rules (400s with the field path as attr). */
export function readFunnelFilter(filter: FunnelFilter, ctx: AnalysisContext): FunnelSpec {
  const groupIndex = readFunnelAggregation(filter);
  const steps = mergeSeries(filter);
  requireTwoSteps(steps);
  const fromStep = readNumber(filter, "funnel_from_step") ?? 0;
  const toStep = readNumber(filter, "funnel_to_step") ?? steps.length - 1;
  rejectUnknownStepRange(fromStep, toStep, steps.length);
  const exclusions = readExclusions(filter, steps.length);
  const orderType = oneOf(filter, "funnel_order_type", ORDER_TYPES, "ordered");
  checkExclusions(exclusions, steps, orderType);
  const viz = readViz(filter);
  const optional = steps.map((step) => step.raw.optionalInFunnel === true);
  checkOptionalSteps(steps, optional, viz, orderType, exclusions.length);
  const limit = readNumber(filter, "breakdown_limit");
  const attribution = oneOf(filter, "breakdown_attribution_type", ATTRIBUTIONS, "first_touch");
  const attributionStep = readNumber(filter, "breakdown_attribution_value") ?? 0;
  rejectUnknownAttributionStep(attribution, attributionStep, steps.length, orderType);
  return {
    raw: filter,
    steps,
    orderType,
    viz,
    windowMs: readWindowMs(filter),
    exclusions,
    fromStep,
    toStep,
    interval: readInterval(filter),
    breakdown: readBreakdown(filter, ctx),
    breakdownLimit: limit !== undefined && limit > 0 ? Math.floor(limit) : 10,
    attribution,
    attributionStep,
    binCount: readNumber(filter, "bin_count"),
    groupIndex,
    hogqlActor: readHogqlAggregation(filter),
    optional: optional.reduce((mask, isOptional, k) => (isOptional ? mask | (1 << k) : mask), 0),
  };
}

function oneOf<T extends string>(filter: Loose, key: string, allowed: readonly T[], fallback: T): T {
  const value = readString(filter, key);
  if (value === undefined || value === "") return fallback;
  if (!(allowed as readonly string[]).includes(value)) throw reject.invalid(key, `"${value}" is not a valid choice.`);
  return value as T;
}

/** Legacy: no funnel_viz_type but display ActionsLineGraph means trends (§5.1). */
function readViz(filter: Loose): FunnelSpec["viz"] {
  if (!readString(filter, "funnel_viz_type") && readString(filter, "display") === "ActionsLineGraph") return "trends";
  return oneOf(filter, "funnel_viz_type", VIZ_TYPES, "steps");
}

function readInterval(filter: Loose): Interval {
  const value = readString(filter, "interval") || "day";
  if (!(INTERVALS as readonly string[]).includes(value)) throw reject.invalid("interval", `"${value}" is not a valid interval.`);
  return value === "minute" ? "hour" : (value as Interval);
}

const UNIT_SECONDS: Readonly<Record<string, number>> = { second: 1, minute: 60, hour: 3600, day: 86_400, week: 604_800, month: 2_592_000 };

/**
 * The conversion window: funnel_window_interval with its unit from funnel_window_interval_unit or the API
 * doc's funnel_window_interval_type (case-insensitive, plural accepted), else the deprecated
 * funnel_window_days, else 14 days. A month is 30 days, as PostHog's DATERANGE_MAP has it.
 */
function readWindowMs(filter: Loose): number {
  const interval = readNumber(filter, "funnel_window_interval");
  const unitKey = filter.funnel_window_interval_unit !== undefined ? "funnel_window_interval_unit" : "funnel_window_interval_type";
  const rawUnit = (readString(filter, unitKey) || "day").toLowerCase().replace(/s$/, "");
  const seconds = UNIT_SECONDS[rawUnit];
  if (seconds === undefined) throw reject.invalid(unitKey, `"${readString(filter, unitKey)}" is not a valid window unit.`);
  // A window of zero or less falls back to 14 of its unit (PostHog's FunnelQueryContext,
  // test_funnel_conversion_window.py::test_window_interval_falls_back_for_non_positive).
  if (interval !== undefined) return (interval > 0 ? interval : 14) * seconds * 1000;
  // A unit alone means 14 of it, as the real service defaults the interval and not the unit.
  if (readString(filter, unitKey)) return 14 * seconds * 1000;
  const days = readNumber(filter, "funnel_window_days");
  return (days ?? 14) * 86_400_000;
}

function readExclusions(filter: Loose, stepCount: number): Exclusion[] {
  return readObjects(filter, "exclusions").map((raw, i) => ({
    entity: entityFrom(raw, i)!,
    fromStep: readNumber(raw, "funnel_from_step") ?? 0,
    toStep: readNumber(raw, "funnel_to_step") ?? stepCount - 1,
  }));
}
