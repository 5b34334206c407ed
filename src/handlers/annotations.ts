import { fail } from "../core/errors.ts";
import { paginate } from "../http/pagination.ts";
import { reply, type Handler, type HandlerArgs, type Query, type Schema } from "./types.ts";
import { writableFields } from "../http/writable-fields.ts";
import { ANNOTATION_WRITABLE, type AnnotationInput } from "../store/annotations-repo.ts";
import type { AnnotationRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { parseInstant } from "./instant-param.ts";
import { toUserJson } from "./user-json.ts";

/** The real serializer's shape: the insight's and dashboard's names are read through at answer time. */
function toAnnotationJson(a: AnnotationRecord, store: Store): Schema<"Annotation"> {
  const insight = a.dashboard_item === null ? undefined : store.insights.get(a.project_id, a.dashboard_item, { includeDeleted: true });
  const dashboard = a.dashboard_id === null ? undefined : store.dashboards.get(a.project_id, a.dashboard_id);
  return {
    id: a.id,
    content: a.content,
    date_marker: a.date_marker,
    creation_type: a.creation_type,
    dashboard_item: a.dashboard_item,
    dashboard_id: a.dashboard_id,
    dashboard_name: dashboard?.name ?? null,
    insight_short_id: insight?.short_id ?? null,
    insight_name: insight?.name ?? null,
    insight_derived_name: insight?.derived_name ?? null,
    created_by: toUserJson(store.users.get(a.created_by)),
    created_at: a.created_at,
    updated_at: a.updated_at,
    deleted: a.deleted,
    scope: a.scope,
  };
}

/** `after`/`before` as the events list reads them; anything else is a 400 naming it. */
function bound(args: HandlerArgs, name: "after" | "before"): number | undefined {
  const value = (args.c.request.query as Query<"annotations_list">)[name];
  if (value === undefined) return undefined;
  const ms = parseInstant(value, args.deps.clock.now(), args.project.timezone);
  if (ms === undefined) throw fail.invalid(name, `${name} must be an ISO 8601 date-time or a relative date such as -7d or 2h.`);
  return ms;
}

/** The list's filters: `search` over content, `scope`, and `after`/`before` over `date_marker` (bounds excluded). */
function annotationMatcher(args: HandlerArgs): (a: AnnotationRecord) => boolean {
  const q = args.c.request.query as Query<"annotations_list">;
  const search = q.search?.toLowerCase();
  const after = bound(args, "after");
  const before = bound(args, "before");
  return (a) => {
    if (search !== undefined && !(a.content ?? "").toLowerCase().includes(search)) return false;
    if (q.scope !== undefined && a.scope !== q.scope) return false;
    if (after === undefined && before === undefined) return true;
    if (a.date_marker === null) return false;
    const at = Date.parse(a.date_marker);
    return (after === undefined || at > after) && (before === undefined || at < before);
  };
}

/** Latest `date_marker` first, those without one first (PostgreSQL's `DESC` order), then newest id. */
function byListOrder(a: AnnotationRecord, b: AnnotationRecord): number {
  if (a.date_marker !== b.date_marker) {
    if (a.date_marker === null) return -1;
    if (b.date_marker === null) return 1;
    return Date.parse(b.date_marker) - Date.parse(a.date_marker) || b.id - a.id;
  }
  return b.id - a.id;
}

/** The insight and dashboard an annotation names must be the project's (a foreign key in the real service). */
function requireReferences(input: AnnotationInput, args: HandlerArgs) {
  const { store } = args.deps;
  if (input.dashboard_item != null && !store.insights.get(args.project.id, input.dashboard_item, { includeDeleted: true })) {
    throw fail.invalid("dashboard_item", `Invalid pk "${input.dashboard_item}" - object does not exist.`, "does_not_exist");
  }
  if (input.dashboard_id != null && !store.dashboards.get(args.project.id, input.dashboard_id)) {
    throw fail.invalid("dashboard_id", `Invalid pk "${input.dashboard_id}" - object does not exist.`, "does_not_exist");
  }
}

function findAnnotation(args: HandlerArgs, opts: { includeDeleted?: boolean } = {}): AnnotationRecord {
  const id = Number((args.c.request.params as { id: number }).id);
  const annotation = args.deps.store.annotations.get(args.project.id, id, opts);
  if (!annotation) throw fail.notFound();
  return annotation;
}

/** The written fields, `date_marker` in UTC as the real service answers it; a date-time no clock has (`23:59:60`) is a 400. */
function inputOf(args: HandlerArgs): AnnotationInput {
  const input = writableFields<AnnotationInput>(args.c.request.requestBody, ANNOTATION_WRITABLE);
  if (typeof input.date_marker === "string") {
    const ms = Date.parse(input.date_marker);
    if (Number.isNaN(ms)) throw fail.invalid("date_marker", "Datetime has wrong format.");
    input.date_marker = new Date(ms).toISOString();
  }
  return input;
}

export const annotationHandlers = {
  annotations_list: (args) => {
    const { c, deps, project, url } = args;
    const q = c.request.query as Query<"annotations_list">;
    const matches = deps.store.annotations.list(project.id).filter(annotationMatcher(args)).sort(byListOrder);
    const page = paginate(matches, url, q.limit ?? 1000, q.offset ?? 0);
    return reply(200, { ...page, results: page.results.map((a) => toAnnotationJson(a, deps.store)) });
  },

  annotations_create: async (args) => {
    const input = inputOf(args);
    requireReferences(input, args);
    const annotation = await args.deps.store.annotations.create(args.project.id, input, args.caller.user.id);
    return reply(201, toAnnotationJson(annotation, args.deps.store));
  },

  annotations_retrieve: (args) => reply(200, toAnnotationJson(findAnnotation(args), args.deps.store)),

  annotations_partial_update: async (args) => {
    const annotation = findAnnotation(args, { includeDeleted: true });
    const input = inputOf(args);
    requireReferences(input, args);
    return reply(200, toAnnotationJson(await args.deps.store.annotations.update(annotation, input), args.deps.store));
  },
} satisfies Record<string, Handler>;
