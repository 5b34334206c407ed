import type { ActionRecord, EventList } from "../../store/schema.ts";
import { compileActionStep } from "../shared/action-match.ts";
import type { AnalysisContext, FilterContext } from "../shared/context.ts";
import { indexRange } from "../shared/scan.ts";

/** The instant `months` calendar months before `ms` in UTC, the day clamped to the month's last (dateutil's relativedelta). */
export function monthsBefore(ms: number, months: number): number {
  const d = new Date(ms);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.getTime() + (ms - Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
}

/** The real service counts an action's events of the last three months, both bounds excluded. */
const COUNT_MONTHS = 3;

/** How many events the action matches with a timestamp strictly between three months before now and now. */
export function countActionEvents(events: EventList, action: ActionRecord, ctx: FilterContext & Pick<AnalysisContext, "personOf">): number {
  const steps = action.steps.map((step, i) => compileActionStep(step, ctx, `steps__${i}`));
  if (steps.length === 0) return 0;
  const [start, end] = indexRange(events, monthsBefore(ctx.now, COUNT_MONTHS) + 1, ctx.now - 1);
  let count = 0;
  for (let i = start; i < end; i++) {
    const event = events.at(i)!;
    const person = ctx.personOf(event.distinct_id);
    if (steps.some((step) => step(event, person))) count++;
  }
  return count;
}
