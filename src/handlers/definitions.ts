import { LRUCache } from "lru-cache";
import { fail } from "../core/errors.ts";
import { parseParam } from "../http/query-json.ts";
import { reply, type Handler, type HandlerArgs } from "./types.ts";
import { eventTaxonomyOffMain, recordProperties, type PropertyDefinition, type Taxonomy } from "../services/definitions.ts";
import type { Store } from "../store/store.ts";
import { stableUuid } from "../util/ids.ts";
import { listPage } from "./list-page.ts";

type Q = Record<string, unknown>;
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * One taxonomy per store, project, data version and minute (the 30-day volumes move with the clock), computed off
 * the event loop. The promise is kept from the start, so requests arriving while it computes wait for the same one.
 */
const taxonomies = new WeakMap<Store, LRUCache<string, Promise<Taxonomy>>>();
function taxonomyOf(args: Pick<HandlerArgs, "deps" | "project">): Promise<Taxonomy> {
  const { store, clock } = args.deps;
  const now = clock.now();
  const key = `${args.project.id}:${store.analysisData.version(args.project.id)}:${Math.floor(now / 60_000)}`;
  let cache = taxonomies.get(store);
  if (!cache) taxonomies.set(store, (cache = new LRUCache({ max: 16 })));
  const cached = cache.get(key);
  if (cached) return cached;
  const computing = eventTaxonomyOffMain(store, args.project.id, now);
  cache.set(key, computing);
  // A failure is not kept: the next request computes again.
  computing.catch(() => cache.peek(key) === computing && cache.delete(key));
  return computing;
}

function personProperties(args: Pick<HandlerArgs, "deps" | "project">): PropertyDefinition[] {
  return recordProperties([...args.deps.store.analysisData.index(args.project.id).personsById.values()].map((p) => p.properties));
}

function groupProperties(args: Pick<HandlerArgs, "deps" | "project">, index: number): PropertyDefinition[] {
  return recordProperties(args.deps.store.analysisData.groups(args.project.id).filter((g) => g.group_type_index === index).map((g) => g.properties));
}

const page = (args: HandlerArgs, items: unknown[]) => reply(200, listPage(args, items));

const contains = (term: unknown) => (name: string) => typeof term !== "string" || name.toLowerCase().includes(term.toLowerCase());

function eventNamesParam(q: Q): Set<string> | null {
  if (q.event_names === undefined) return null;
  const names = parseParam("event_names", String(q.event_names));
  if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) throw fail.invalid("event_names", "event_names must be a JSON list of event names.");
  return new Set(names as string[]);
}

/** The property definitions of the request's `type`, with its filters applied. */
async function propertyDefinitions(args: HandlerArgs) {
  const q = args.c.request.query as Q;
  const type = (q.type as string | undefined) ?? "event";
  if (type === "group" && q.group_type_index === undefined) throw fail.invalid("group_type_index", "group_type_index is required with type=group.");
  const all = type === "person" ? personProperties(args) : type === "group" ? groupProperties(args, Number(q.group_type_index)) : (await taxonomyOf(args)).eventProperties;
  const names = type === "event" ? eventNamesParam(q) : null;
  const only = typeof q.properties === "string" ? new Set(q.properties.split(",").map((s) => s.trim())) : null;
  const seenOn = (p: PropertyDefinition) => (names === null ? null : [...names].some((n) => p.eventNames.has(n)));
  return all
    .filter(
      (p) =>
        contains(q.search)(p.name) &&
        (only === null || only.has(p.name)) &&
        (q.is_numerical === undefined || (p.propertyType === "Numeric") === q.is_numerical) &&
        (q.exclude_core_properties !== true || !p.name.startsWith("$")) &&
        (q.is_feature_flag === undefined || p.name.startsWith("$feature/") === q.is_feature_flag) &&
        (q.filter_by_event_names !== true || seenOn(p) !== false),
    )
    .map((p) => ({
      id: stableUuid(`property-definition:${args.project.id}:${type}:${q.group_type_index ?? ""}:${p.name}`),
      name: p.name,
      type: type === "event" ? 1 : type === "person" ? 2 : 3,
      group_type_index: type === "group" ? Number(q.group_type_index) : null,
      property_type: p.propertyType,
      is_numerical: p.propertyType === "Numeric",
      is_seen_on_filtered_events: seenOn(p),
      description: null,
      tags: [],
      verified: false,
      hidden: false,
    }));
}

/** The read_taxonomy tool's answer as text, one line per item (what the real tool returns to an agent). */
async function taxonomyText(args: HandlerArgs, query: Q): Promise<{ success: boolean; content: string }> {
  const limit = typeof query.limit === "number" ? query.limit : 100;
  const kind = String(query.kind);
  const lines = (items: string[]) => ({ success: true, content: items.slice(0, limit).join("\n") || "(none)" });
  if (kind === "events") return lines((await taxonomyOf(args)).events.map((e) => `${e.name}: ${e.volume30Day} events in the last 30 days, last seen ${iso(e.lastSeen)}`));
  const describe = (list: PropertyDefinition[]) => list.map((p) => `${p.name} (${p.propertyType ?? "unknown"})`);
  if (kind === "event_properties") {
    const event = String(query.event_name ?? "");
    return lines(describe((await taxonomyOf(args)).eventProperties.filter((p) => p.eventNames.has(event))));
  }
  const entity = String(query.entity ?? "person");
  const groupIndex = args.deps.store.analysisData.groupTypes(args.project.id).find((t) => t.group_type === entity)?.group_type_index;
  const entityProps = () => (entity === "person" ? personProperties(args) : groupIndex !== undefined ? groupProperties(args, groupIndex) : null);
  if (kind === "entity_properties") {
    const props = entityProps();
    return props ? lines(describe(props)) : { success: false, content: `Unknown entity "${entity}": person or a group type name of the project.` };
  }
  const property = String(query.property_name ?? "");
  if (kind === "event_property_values" || kind === "entity_property_values") {
    const counts = new Map<string, number>();
    const add = (v: unknown) => v !== undefined && v !== null && counts.set(JSON.stringify(v), (counts.get(JSON.stringify(v)) ?? 0) + 1);
    if (kind === "event_property_values") {
      const table = args.deps.store.events.of(args.project.id);
      for (const position of table.positionsOfName(String(query.event_name ?? ""))) add(table.at(position)!.prop(property));
    } else if (entity === "person") {
      for (const p of args.deps.store.analysisData.index(args.project.id).personsById.values()) add(p.properties[property]);
    } else if (groupIndex !== undefined) {
      for (const g of args.deps.store.analysisData.groups(args.project.id)) if (g.group_type_index === groupIndex) add(g.properties[property]);
    } else return { success: false, content: `Unknown entity "${entity}": person or a group type name of the project.` };
    return lines([...counts].sort((a, b) => b[1] - a[1]).map(([v, n]) => `${v} (${n})`));
  }
  return { success: false, content: `The taxonomy query kind "${kind}" is not answered by this mock (list actions with GET /api/projects/{id}/actions/).` };
}

export const definitionHandlers = {
  event_definitions_list: async (args) => {
    const q = args.c.request.query as Q;
    const kind = q.event_type as string | undefined;
    const events = (await taxonomyOf(args)).events.filter(
      (e) => contains(q.search)(e.name) && (kind === "event_custom" ? !e.name.startsWith("$") : kind === "event_posthog" ? e.name.startsWith("$") : true),
    );
    return page(
      args,
      events.map((e) => ({
        id: stableUuid(`event-definition:${args.project.id}:${e.name}`),
        name: e.name,
        created_at: iso(e.firstSeen),
        last_seen_at: iso(e.lastSeen),
        volume_30_day: e.volume30Day,
        description: null,
        owner: null,
        tags: [],
        verified: false,
        hidden: false,
      })),
    );
  },

  property_definitions_list: async (args) => page(args, await propertyDefinitions(args)),

  mcp_tools_read_taxonomy: async (args) => reply(200, await taxonomyText(args, ((args.c.request.requestBody as Q).args as Q).query as Q)),
} satisfies Record<string, Handler>;
