import type { EventList } from "../../store/schema.ts";
import { actorTableOf } from "../shared/actor-table.ts";
import type { Buckets } from "../shared/buckets.ts";
import type { EventMatcher } from "../shared/entity-match.ts";
import { hasSnapshots } from "../shared/event-read.ts";
import { firstSeenByActor } from "../shared/first-seen.ts";
import { ALWAYS } from "../shared/property-filter.ts";
import type { CountSeries } from "./column-counts.ts";
import type { MathPlan } from "./maths.ts";

/**
 * first_time_for_user and first_matching_event_for_user of persons without a breakdown, over every core: each
 * person's first matching event (of all time up to the range's end, ../shared/first-seen.ts) counts in its bucket
 * when inside the range. first_time_for_user counts the first event of the name only if it passes the conditions
 * too: with conditions it takes the general scan. Undefined when the general scan must run.
 */
export function columnFirstTimes(events: EventList, matcher: EventMatcher, firstTime: NonNullable<MathPlan["firstTime"]>, buckets: Buckets, ctx: CountSeries["ctx"]): number[] | undefined {
  if (!hasSnapshots(events) || (firstTime === "event" && matcher.rest !== ALWAYS)) return undefined;
  const table = actorTableOf(ctx, events, events.scanSnapshot().distinctIds);
  const first = firstSeenByActor(events, matcher, buckets.to + 1, table);
  if (!first) return undefined;
  const counts = new Array<number>(buckets.length).fill(0);
  for (const at of first) {
    const b = at >= buckets.from && at !== Infinity ? buckets.indexOf(at) : -1;
    if (b >= 0) counts[b]!++;
  }
  return counts;
}
