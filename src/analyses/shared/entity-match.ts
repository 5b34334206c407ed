import type { EventRecord, PersonRecord } from "../../store/schema.ts";
import { compileActionStep } from "./action-match.ts";
import type { FilterContext, AnalysisContext } from "./context.ts";
import { readBool, type Loose } from "./filter-read.ts";
import { ALWAYS, all, compileRowPredicate, type RowPredicate } from "./property-filter.ts";
import { findAction, type SeriesEntity } from "./series.ts";

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
  const steps = action.steps.map((step, i) => compileActionStep(step, ctx, `${attr}__steps__${i}`));
  const named = action.steps.every((s) => typeof s.event === "string" && s.event !== "");
  const names = named ? new Set(action.steps.map((s) => s.event as string)) : null;
  const anyStep: RowPredicate = (event, person) => {
    for (const step of steps) if (step(event, person)) return true;
    return false;
  };
  return { names, rest: all([anyStep, own, global]) };
}
