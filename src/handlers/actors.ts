import { POINT_PARAMS, type ActorRow, type DataPoint } from "../analyses/actors/index.ts";
import type { ActorsKind } from "../analyses/actors/index.ts";
import { paginate } from "../http/pagination.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import type { GroupRecord, PersonRecord } from "../store/schema.ts";
import { filterOf, requireSeries, type Filter } from "./insight-analyses.ts";
import { personName, toActorJson } from "./person-json.ts";

/** Query parameters of the actors endpoints that are neither the filter nor the data point. */
const PAGING = ["limit", "offset", "search", "format", "refresh"];
const NOT_FILTER: ReadonlySet<string> = new Set([...PAGING, ...POINT_PARAMS]);

type Q = Record<string, unknown>;

/**
 * The data point: from the query string, or from a POST body (the query string wins). Everything else of the
 * GET query, or of the body, is the insight's filter.
 */
function pointOf(args: HandlerArgs): DataPoint {
  const query = args.c.request.query as Q;
  const body = (args.c.request.method.toLowerCase() === "get" ? {} : (args.c.request.requestBody ?? {})) as Q;
  const point: DataPoint = {};
  for (const key of POINT_PARAMS) {
    const value = query[key] ?? body[key];
    if (value !== undefined) point[key] = value;
  }
  return point;
}

function insightFilter(args: HandlerArgs, schema: string): Filter {
  const filter = filterOf(args, schema, NOT_FILTER);
  return Object.fromEntries(Object.entries(filter).filter(([key]) => !NOT_FILTER.has(key)));
}

/** Email or name contains the text (case-insensitive), or a distinct id contains it (reference §4.9). */
function matchesSearch(person: PersonRecord, term: string): boolean {
  const needle = term.toLowerCase();
  const email = person.properties.email;
  if (typeof email === "string" && email.toLowerCase().includes(needle)) return true;
  if (personName(person).toLowerCase().includes(needle)) return true;
  return person.distinct_ids.some((id) => id.toLowerCase().includes(needle));
}

type ActorJson = Omit<ReturnType<typeof toActorJson>, "value_at_data_point"> & { value_at_data_point: number | null };

/** The real service's group actor (posthog/queries/actor_base_query.py serialize_groups): `id` is the group key. */
export function toGroupActorJson(group: GroupRecord, value: number | null) {
  return {
    type: "group" as const,
    id: group.group_key,
    group_key: group.group_key,
    group_type_index: group.group_type_index,
    created_at: group.created_at,
    properties: group.properties,
    matched_recordings: [] as never[],
    value_at_data_point: value,
  };
}
type GroupActorJson = ReturnType<typeof toGroupActorJson>;

/** Group key or `name` property contains the text (case-insensitive). */
function groupMatchesSearch(group: GroupRecord, term: string): boolean {
  const needle = term.toLowerCase();
  const name = group.properties.name;
  return group.group_key.toLowerCase().includes(needle) || (typeof name === "string" && name.toLowerCase().includes(needle));
}

/**
 * The legacy actors envelope (reference: ingestion-persons-events §4.9): one `results` entry whose `people` is the
 * page; actors whose person no longer exists (or never did: an unknown distinct id) or whose group has no record are
 * `missing_persons`. Groups are listed in the group actor shape when the analysis aggregates by groups. Actors carry their share of the number in `value_at_data_point` where it counts more
 * than actors.
 */
function actorsReply(args: HandlerArgs, rows: ActorRow[], pkg: { last_refresh: string; is_cached: boolean }) {
  const q = args.c.request.query as Q;
  const term = typeof q.search === "string" && q.search !== "" ? q.search : null;
  let missing = 0;
  const people: (ActorJson | GroupActorJson)[] = [];
  for (const row of rows) {
    if (row.groupTypeIndex !== undefined) {
      const group = args.deps.store.groups.get(args.project.id, row.groupTypeIndex, String(row.key));
      if (!group) missing++;
      else if (term === null || groupMatchesSearch(group, term)) people.push(toGroupActorJson(group, row.value));
      continue;
    }
    const person = typeof row.key === "number" && row.key > 0 ? args.deps.store.persons.find(args.project.id, String(row.key)) : undefined;
    if (!person) missing++;
    else if (term === null || matchesSearch(person, term)) people.push({ ...toActorJson(person), value_at_data_point: row.value });
  }
  const limit = Number(q.limit ?? q.funnel_correlation_person_limit ?? 100);
  const offset = Number(q.offset ?? q.funnel_correlation_person_offset ?? 0);
  const page = paginate(people, args.url, limit, offset);
  const initial = new URL(args.url);
  initial.searchParams.delete("offset");
  return reply(200, {
    results: [{ people: page.results, count: page.results.length }],
    next: page.next,
    initial: initial.toString(),
    missing_persons: missing,
    is_cached: pkg.is_cached,
    last_refresh: pkg.last_refresh,
  });
}

function actorsOf(kind: ActorsKind, schema: string, needsSeries: boolean): Handler {
  return async (args) => {
    const point = pointOf(args);
    const filter = insightFilter(args, schema);
    if (needsSeries && point.entity_id === undefined) requireSeries(filter);
    const pkg = await args.deps.analyses.actorsAsync(args.project, kind, filter, point);
    return actorsReply(args, pkg.actors, pkg);
  };
}

export const actorHandlers = {
  persons_trends_retrieve: actorsOf("TRENDS", "TrendRequest", true),
  persons_stickiness_retrieve: actorsOf("STICKINESS", "TrendRequest", true),
  persons_lifecycle_retrieve: actorsOf("LIFECYCLE", "TrendRequest", true),
  persons_funnel_retrieve: actorsOf("FUNNELS", "FunnelRequest", true),
  persons_funnel_create: actorsOf("FUNNELS", "FunnelRequest", true),
  persons_funnel_correlation_retrieve: actorsOf("FUNNEL_CORRELATION", "FunnelCorrelationRequest", true),
  persons_funnel_correlation_create: actorsOf("FUNNEL_CORRELATION", "FunnelCorrelationRequest", true),
  persons_retention_retrieve: actorsOf("RETENTION", "RetentionRequest", false),
  persons_path_retrieve: actorsOf("PATHS", "PathRequest", false),
  persons_path_create: actorsOf("PATHS", "PathRequest", false),
} satisfies Record<string, Handler>;
