import type { ActionRecord } from "../../store/schema.ts";
import type { AnalysisContext } from "./context.ts";
import { isObject, readObjects, readString, type Loose } from "./filter-read.ts";

/**
 * Series entities (reference: analytics §1.3): `events` and `actions` merged by `order`; the position in
 * the merged list is the formula letter and the funnel step index. Stickiness, lifecycle, retention and
 * paths take their entities from here too.
 */
export interface SeriesEntity {
  type: "events" | "actions";
  /** Event name (null = all events) or action id. */
  id: string | number | null;
  order: number | undefined;
  name: string | null;
  custom_name: string | null;
  math: string | undefined;
  math_property: string | undefined;
  math_group_type_index: number | undefined;
  properties: unknown;
  /** Position in the merged list. */
  index: number;
  /** Position in its own list (`events` or `actions`), for error paths like `events__0__math`. */
  position: number;
  raw: Loose;
}

const entityOf = (raw: Loose, type: "events" | "actions", position = 0): Omit<SeriesEntity, "index"> => ({
  type,
  position,
  id: raw.id === undefined || raw.id === "" ? null : (raw.id as string | number | null),
  order: typeof raw.order === "number" ? raw.order : typeof raw.order === "string" && raw.order !== "" ? Number(raw.order) : undefined,
  name: readString(raw, "name") ?? null,
  custom_name: readString(raw, "custom_name") ?? null,
  math: readString(raw, "math") || undefined,
  math_property: readString(raw, "math_property") || undefined,
  math_group_type_index: typeof raw.math_group_type_index === "number" ? raw.math_group_type_index : undefined,
  properties: raw.properties,
  raw,
});

/** Entries without `order` (or with 0) first; equal orders put actions before events; otherwise stable. */
export function mergeSeries(filter: Loose, keys: { events: string; actions: string } = { events: "events", actions: "actions" }): SeriesEntity[] {
  const actions = readObjects(filter, keys.actions).map((raw, i) => entityOf(raw, "actions", i));
  const events = readObjects(filter, keys.events).map((raw, i) => entityOf(raw, "events", i));
  // A missing, NaN or 0 order ranks as -1, as PostHog's legacy Filter sorts (`order if order else -1`), so an entry
  // with order 0 stays before one without (PostHog test_trends.py::test_breakdown_filtering).
  const rank = (e: { order: number | undefined }) => (e.order === undefined || Number.isNaN(e.order) || e.order === 0 ? -1 : e.order);
  return [...actions, ...events]
    .map((entity, position) => ({ entity, position }))
    .sort((a, b) => rank(a.entity) - rank(b.entity) || typeOrder(a.entity) - typeOrder(b.entity) || a.position - b.position)
    .map(({ entity }, index) => ({ ...entity, index }));
}

const typeOrder = (e: { type: string }): number => (e.type === "actions" ? 0 : 1);

/** Parses one entity given as an object (exclusions, retention entities). */
export function entityFrom(raw: unknown, index = 0): SeriesEntity | undefined {
  if (!isObject(raw)) return undefined;
  return { ...entityOf(raw, raw.type === "actions" ? "actions" : "events"), index };
}

export function findAction(ctx: Pick<AnalysisContext, "actions">, id: string | number | null): ActionRecord | undefined {
  return id === null ? undefined : ctx.actions.find((a) => String(a.id) === String(id));
}

/** The series label: event name, action name, or "All events" (reference §2.2). */
export function seriesLabel(entity: SeriesEntity, ctx: Pick<AnalysisContext, "actions">): string {
  if (entity.type === "actions") return findAction(ctx, entity.id)?.name ?? entity.name ?? String(entity.id);
  return entity.id === null ? "All events" : String(entity.id);
}
