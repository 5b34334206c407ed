import type { ActionStep, EventRecord, PersonRecord } from "../../store/schema.ts";
import type { FilterContext, AnalysisContext } from "./context.ts";
import { readBool, type Loose } from "./filter-read.ts";
import { ALWAYS, all, compileRowPredicate, type RowPredicate } from "./property-filter.ts";
import { stringForm } from "./property-operators.ts";
import { compileLikePattern, compileUserRegex } from "./regex.ts";
import { findAction, type SeriesEntity } from "./series.ts";
import { eventProperty } from "./event-read.ts";

/**
 * Which events a series (or funnel step, or exclusion) matches: a cheap event-name test first, then the
 * compiled rest (action step conditions, the entity's own properties, the global filters).
 */
export interface EventMatcher {
  /** null = any event name. */
  names: ReadonlySet<string> | null;
  rest: RowPredicate;
}

export const NEVER: EventMatcher = { names: new Set(), rest: () => false };

export function matchesEvent(m: EventMatcher, event: EventRecord, person: PersonRecord | undefined): boolean {
  return (m.names === null || m.names.has(event.event)) && m.rest(event, person);
}

/** Global filters: `properties` plus the project's test-account filters when filter_test_accounts is on (§1.4). */
export function compileGlobalFilter(filter: Loose, ctx: FilterContext & Pick<AnalysisContext, "testAccountFilters">): RowPredicate {
  const testAccounts = readBool(filter, "filter_test_accounts") ? compileRowPredicate([...ctx.testAccountFilters], ctx) : ALWAYS;
  return all([compileRowPredicate(filter.properties, ctx), testAccounts]);
}

/** The matcher of one entity; `global` is ANDed in (pass ALWAYS to leave it out). */
export function compileEntityMatcher(entity: SeriesEntity, ctx: FilterContext & Pick<AnalysisContext, "actions">, global: RowPredicate, attr: string): EventMatcher {
  const own = compileRowPredicate(entity.properties, ctx, `${attr}__properties`);
  if (entity.type === "events") {
    return { names: entity.id === null ? null : new Set([String(entity.id)]), rest: all([own, global]) };
  }
  const action = findAction(ctx, entity.id);
  if (!action) return NEVER;
  const steps = action.steps.map((step) => compileStep(step, ctx, attr));
  const named = action.steps.every((s) => typeof s.event === "string" && s.event !== "");
  const names = named ? new Set(action.steps.map((s) => s.event as string)) : null;
  const anyStep: RowPredicate = (event, person) => {
    for (const step of steps) if (step(event, person)) return true;
    return false;
  };
  return { names, rest: all([anyStep, own, global]) };
}

/** An action step: event name (null = any), property filters, and a URL condition on $current_url. */
function compileStep(step: ActionStep, ctx: FilterContext, attr: string): RowPredicate {
  const name = typeof step.event === "string" && step.event !== "" ? step.event : null;
  const props = compileRowPredicate(step.properties ?? [], ctx, attr);
  const url = step.url ? compileUrl(step.url, step.url_matching ?? "contains", attr) : undefined;
  return (event, person) => {
    if (!event || (name !== null && event.event !== name)) return false;
    if (url) {
      const current = eventProperty(event, "$current_url");
      if (current === undefined || current === null || !url(stringForm(current))) return false;
    }
    return props(event, person);
  };
}

function compileUrl(url: string, matching: string, attr: string): (value: string) => boolean {
  if (matching === "exact") return (value) => value === url;
  if (matching === "regex") {
    const re = compileUserRegex(url, attr);
    return (value) => re.test(value);
  }
  const like = compileLikePattern(url, { caseInsensitive: false });
  return (value) => like.test(value);
}
