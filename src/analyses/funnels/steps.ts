import type { AnalysisContext } from "../shared/context.ts";
import type { Loose } from "../shared/filter-read.ts";
import { meanSeconds, quantile } from "../shared/math.ts";
import { filterParams, paramValue } from "../shared/people-url.ts";
import { seriesLabel, type SeriesEntity } from "../shared/series.ts";
import { reachesStep, type ReachedSteps } from "./attempts.ts";
import type { Presented } from "./attribution.ts";
import type { FunnelSpec } from "./filter.ts";

/** One step of the funnel `result` (reference: analytics §5.5). */
export interface FunnelStep {
  action_id: string | number | null;
  name: string | null;
  custom_name: string | null;
  order: number;
  type: "events" | "actions";
  people: never[];
  count: number;
  average_conversion_time: number | null;
  median_conversion_time: number | null;
  converted_people_url: string;
  dropped_people_url: string | null;
  breakdown?: unknown;
  breakdown_value?: unknown;
}

/**
 * Step k counts the actors whose counted attempt went through it (furthest step ≥ k without optional steps); times
 * (seconds) are step k−1 → k of the counted attempt. With optional steps the real service lists the gaps between the
 * attempt's required steps in order, the k-th against step k (funnel_udf.py `timings[k]`), which this follows.
 */
export function stepObjects(attempts: Iterable<ReachedSteps>, spec: FunnelSpec, ctx: AnalysisContext, breakdown?: Presented): FunnelStep[] {
  const list = [...attempts];
  const base = peopleUrlBase(spec.raw, ctx);
  const suffix = breakdown ? `&funnel_step_breakdown=${encodeURIComponent(paramValue(breakdown.breakdown_value))}` : "";
  return spec.steps.map((entity, k) => {
    const reached = list.filter((a) => reachesStep(a, k));
    const ms = k === 0 ? [] : list.filter((a) => a.times.length > k).map((a) => a.times[k]! - a.times[k - 1]!);
    const unordered = spec.orderType === "unordered";
    const step: FunnelStep = {
      action_id: unordered ? null : entity.id,
      name: unordered ? `Completed ${k + 1} step${k > 0 ? "s" : ""}` : stepName(entity, ctx),
      custom_name: unordered ? null : entity.custom_name,
      order: k,
      type: entity.type,
      people: [],
      count: reached.length,
      average_conversion_time: ms.length ? meanSeconds(ms) : null,
      median_conversion_time: ms.length ? quantile(ms.map((t) => t / 1000), 0.5) : null,
      converted_people_url: `${base}&funnel_step=${k + 1}${suffix}`,
      dropped_people_url: k === 0 ? null : `${base}&funnel_step=-${k + 1}${suffix}`,
    };
    if (breakdown) Object.assign(step, breakdown);
    return step;
  });
}

/** An all-events step has no name, as PostHog's step is named by its event (test_funnel.py::test_funnel_with_any_event). */
const stepName = (entity: SeriesEntity, ctx: AnalysisContext): string | null =>
  entity.type === "events" && entity.id === null ? null : seriesLabel(entity, ctx);

/** The legacy persons URL: the filter as query parameters, lists and objects JSON-encoded (§5.5). */
function peopleUrlBase(filter: Loose, ctx: AnalysisContext): string {
  const params = filterParams(ctx, "funnel", filter, (key) => key === "funnel_step" || key === "funnel_step_breakdown");
  return `/api/projects/${ctx.projectId}/persons/funnel/?${params.toString()}`;
}
