/**
 * The parts of a fixture document that came with issue 41: flag payloads as any JSON value, annotations,
 * declared dashboards, and the client libraries' records (surveys, early access features) kept as written.
 */
import type { FixtureAnnotation, FixtureDashboard, FixtureDocument, JsonObject } from "./fixture-document.ts";
import type { ProblemList } from "./fixture-problems.ts";
import type { AnnotationRecord, DashboardRecord, DashboardTileRecord, InsightRecord, ProjectRecord, Properties, SurveyRecord } from "./schema.ts";
import { surveysOf } from "./survey-fixtures.ts";
import { applySurveysOptIn } from "./survey-record.ts";

/** Where the loader's checks report, and how a record's project is checked or, left out, taken as the only one. */
export interface LoadContext {
  problems: ProblemList;
  requireProject(pointer: string, id: string): void;
  projectOf(pointer: string, id: string | undefined): string;
}

const toMs = (iso: string) => Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(iso) ? iso : `${iso}Z`);
const isoOf = (iso: string | undefined, now: number) => new Date(iso ? toMs(iso) : now).toISOString();

/**
 * A flag's filters with each payload stored as the real service stores it, a JSON text: a string that is JSON text
 * stays as written (the earlier fixture shape), any other value is written as its JSON.
 */
export function flagFiltersOf(filters: JsonObject, pointer: string, ctx: LoadContext): Properties {
  const copy = structuredClone(filters);
  const payloads = copy.payloads;
  if (payloads === undefined || payloads === null) return copy;
  if (typeof payloads !== "object" || Array.isArray(payloads)) {
    ctx.problems.add(`${pointer}/payloads`, "must be an object keyed by variant (or \"true\")");
    return copy;
  }
  copy.payloads = Object.fromEntries(Object.entries(payloads).map(([key, value]) => [key, payloadText(value)]));
  return copy;
}

function payloadText(value: unknown): string {
  if (typeof value !== "string") return JSON.stringify(value);
  try {
    JSON.parse(value);
    return value;
  } catch {
    return JSON.stringify(value);
  }
}

interface Dashboards {
  dashboards: DashboardRecord[];
  tiles: DashboardTileRecord[];
}

/**
 * The document's `dashboards` over those its insights name by id: a declared dashboard with the id of such a
 * dashboard gives it its name and fields; tiles name the document's insights by short_id (text tiles are not kept).
 */
export function declaredDashboards(doc: FixtureDocument, insights: readonly InsightRecord[], derived: Dashboards, now: number, ctx: LoadContext): Dashboards {
  const dashboards = [...derived.dashboards];
  const tiles = [...derived.tiles];
  let nextId = Math.max(0, ...dashboards.map((d) => d.id), ...(doc.dashboards ?? []).map((d) => d.id ?? 0));
  (doc.dashboards ?? []).forEach((given, i) => {
    const pointer = `/dashboards/${i}`;
    ctx.requireProject(pointer, given.project_id);
    const id = given.id ?? ++nextId;
    const at = dashboards.findIndex((d) => d.id === id);
    if (at >= 0 && dashboards[at]!.project_id !== given.project_id) {
      ctx.problems.add(`${pointer}/id`, `dashboard ${id} belongs to project ${dashboards[at]!.project_id}`);
      return;
    }
    if (at >= 0 && (doc.dashboards ?? []).findIndex((d) => d.id === id) !== i) ctx.problems.add(`${pointer}/id`, `duplicate id ${id}`);
    const record = dashboardRecord(given, id, now, at >= 0 ? dashboards[at] : undefined);
    if (at >= 0) dashboards[at] = record;
    else dashboards.push(record);
    tiles.push(...tilesOf(given, id, insights, tiles.length, pointer, ctx).filter((t) => !tiles.some((o) => o.dashboard_id === id && o.insight_id === t.insight_id)));
  });
  return { dashboards, tiles };
}

function dashboardRecord(given: FixtureDashboard, id: number, now: number, derived: DashboardRecord | undefined): DashboardRecord {
  return {
    id,
    project_id: given.project_id,
    name: given.name,
    description: given.description ?? "",
    pinned: given.pinned ?? false,
    tags: [...(given.tags ?? [])],
    filters: structuredClone(given.filters ?? {}),
    deleted: false,
    creation_mode: "default",
    created_at: given.created_at ? isoOf(given.created_at, now) : (derived?.created_at ?? isoOf(undefined, now)),
    created_by: derived?.created_by ?? null,
    last_accessed_at: null,
  };
}

function tilesOf(given: FixtureDashboard, dashboardId: number, insights: readonly InsightRecord[], idBase: number, pointer: string, ctx: LoadContext): DashboardTileRecord[] {
  const tiles: DashboardTileRecord[] = [];
  (given.tiles ?? []).forEach((tile, j) => {
    if (tile.insight === undefined) return;
    const shortId = typeof tile.insight === "string" ? tile.insight : tile.insight.short_id;
    const insight = insights.find((ins) => ins.short_id === shortId && ins.project_id === given.project_id);
    if (!insight) {
      ctx.problems.add(`${pointer}/tiles/${j}/insight`, `no insight with short_id "${shortId}" in project ${given.project_id}`);
      return;
    }
    tiles.push({ id: idBase + tiles.length + 1, dashboard_id: dashboardId, insight_id: insight.id, deleted: insight.deleted, removed: false, color: tile.color ?? null, layouts: structuredClone(tile.layouts ?? {}) });
  });
  return tiles;
}

/**
 * Annotations as the annotations API stores them: scope `dashboard_item` when an insight is named, `dashboard` when a
 * dashboard is, else `project`, unless the document says otherwise.
 */
export function annotationsOf(doc: FixtureDocument, insights: readonly InsightRecord[], dashboards: readonly DashboardRecord[], now: number, ctx: LoadContext): AnnotationRecord[] {
  const given = doc.annotations ?? [];
  let nextId = Math.max(0, ...given.map((a) => a.id ?? 0));
  return given.map((a, i) => {
    const pointer = `/annotations/${i}`;
    const projectId = ctx.projectOf(pointer, a.project_id);
    const insightId = annotationInsight(a, projectId, insights, pointer, ctx);
    if (a.dashboard_id !== undefined && !dashboards.some((d) => d.id === a.dashboard_id && d.project_id === projectId)) {
      ctx.problems.add(`${pointer}/dashboard_id`, `no dashboard ${a.dashboard_id} in project ${projectId}`);
    }
    if (given.findIndex((o) => o.id !== undefined && o.id === a.id) !== i && a.id !== undefined) ctx.problems.add(`${pointer}/id`, `duplicate id ${a.id}`);
    const created = isoOf(a.created_at, now);
    return {
      id: a.id ?? ++nextId,
      project_id: projectId,
      content: a.content,
      date_marker: isoOf(a.date_marker, now),
      creation_type: "USR",
      dashboard_item: insightId,
      dashboard_id: a.dashboard_id ?? null,
      scope: a.scope ?? (insightId !== null ? "dashboard_item" : a.dashboard_id !== undefined ? "dashboard" : "project"),
      deleted: false,
      created_by: null,
      created_at: created,
      updated_at: created,
    };
  });
}

function annotationInsight(a: FixtureAnnotation, projectId: string, insights: readonly InsightRecord[], pointer: string, ctx: LoadContext): number | null {
  if (a.insight_short_id === undefined) return null;
  const insight = insights.find((ins) => ins.short_id === a.insight_short_id && ins.project_id === projectId);
  if (!insight) ctx.problems.add(`${pointer}/insight_short_id`, `no insight with short_id "${a.insight_short_id}" in project ${projectId}`);
  return insight?.id ?? null;
}

/**
 * Surveys (as the surveys API would store them, each project's `surveys_opt_in` following them); absent, the key
 * stays absent from the state. Early access features: src/store/early-access-fixtures.ts.
 */
export function clientRecordsOf(
  doc: FixtureDocument,
  ctx: LoadContext,
  now: number,
  projects: ProjectRecord[],
): { surveys?: SurveyRecord[] } {
  const out: { surveys?: SurveyRecord[] } = {};
  if (doc.surveys?.length) {
    out.surveys = surveysOf(doc.surveys, now, ctx);
    applySurveysOptIn(projects, out.surveys);
  }
  return out;
}
