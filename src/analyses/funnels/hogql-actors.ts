import type { EventRecord, PersonRecord } from "../../store/schema.ts";
import type { Actor } from "../shared/actors.ts";
import type { AnalysisContext } from "../shared/context.ts";
import { hogqlReader } from "../shared/hogql-breakdown.ts";

/**
 * The actors of a funnel aggregated by a HogQL expression (funnel_aggregate_by_hogql, for example
 * `properties.$session_id`): each distinct value of the expression over an event is one actor, and an event whose
 * value is null or empty is in no funnel, as the real service's `aggregation_target != '' and aggregation_target !=
 * null` (funnel_event_query.py). The expression is read per event with its person, by the evaluator the HogQL
 * breakdowns use; an aggregate function or an unknown field is a 400 naming funnel_aggregate_by_hogql.
 */
export interface HogqlActorOf {
  (event: EventRecord, position: number | undefined, person: Actor): Actor | undefined;
  count(): number;
}

export function hogqlActorResolver(text: string, ctx: AnalysisContext): HogqlActorOf {
  const read: (event: EventRecord, person: PersonRecord | undefined) => unknown = hogqlReader(text, "funnel_aggregate_by_hogql", {
    now: ctx.now ?? 0,
    timezone: ctx.timezone,
    propertyTypes: ctx.propertyTypes?.(),
    timeLimitMs: ctx.queryTimeLimitMs,
  });
  const byValue = new Map<string, Actor>();
  const resolve = (event: EventRecord, _position: number | undefined, person: Actor): Actor | undefined => {
    const value = read(event, person.person);
    if (value === null || value === undefined || value === "") return undefined;
    const key = String(value);
    let actor = byValue.get(key);
    if (!actor) byValue.set(key, (actor = { id: byValue.size + 1, person: undefined, slot: byValue.size }));
    return actor;
  };
  return Object.assign(resolve, { count: () => byValue.size });
}
