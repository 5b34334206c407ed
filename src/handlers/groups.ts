import { groupLookup } from "../analyses/shared/groups.ts";
import { fail } from "../core/errors.ts";
import { reply, type Body, type Handler, type HandlerArgs, type Query, type Schema } from "./types.ts";
import type { GroupRecord, GroupTypeRecord, PersonRecord } from "../store/schema.ts";
import { toGroupActorJson } from "./actors.ts";
import { nextPage, pageOf } from "./group-cursor.ts";
import { toActorJson } from "./person-json.ts";

/** Related actors share events of this many days back (the real service's RelatedActorsQuery). */
const RELATED_DAYS = 90;
const PROPERTY_VALUES_LIMIT = 20;

const toGroupJson = (g: GroupRecord): Schema<"Group"> => ({ group_type_index: g.group_type_index, group_key: g.group_key, group_properties: g.properties, created_at: g.created_at });

const toGroupTypeJson = (t: GroupTypeRecord): Schema<"GroupType"> => ({
  group_type: t.group_type,
  group_type_index: t.group_type_index,
  name_singular: t.name_singular,
  name_plural: t.name_plural,
  detail_dashboard: null,
  default_columns: null,
  created_at: null,
});

/** The real service's search: the properties' JSON text holds it, or the key is it (both case-insensitive). */
function groupSearch(search: string | undefined): (g: GroupRecord) => boolean {
  if (search === undefined) return () => true;
  const needle = search.toLowerCase();
  return (g) => JSON.stringify(g.properties).toLowerCase().includes(needle) || g.group_key.toLowerCase() === needle;
}

/** A property value as ClickHouse's trimmed raw JSON gives it: strings bare, everything else as JSON. */
const valueText = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value));

/** `[{name, count}]`, most common first, then by name. */
function counted(names: Iterable<string>): Schema<"GroupPropertyCount">[] {
  const counts = new Map<string, number>();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Persons (oldest first) and groups of other types (by index, then key) sharing the window's events with the actor. */
function relatedActors(args: HandlerArgs, q: Query<"groups_related_retrieve">) {
  const { store, clock } = args.deps;
  const index = store.analysisData.index(args.project.id);
  const lookup = groupLookup(store.analysisData.groupData(args.project.id));
  const types = store.groups.types(args.project.id).map((t) => t.group_type_index);
  const asked = q.group_type_index;
  const person = asked === undefined ? index.personsByUuid.get(q.id) : undefined;
  const inActor = asked === undefined ? (distinctId: string) => person !== undefined && index.personsByDistinctId.get(distinctId) === person : undefined;
  const askedKeyOf = asked === undefined ? undefined : lookup.keyOf(asked);
  const since = clock.now() - RELATED_DAYS * 86_400_000;
  const persons = new Set<PersonRecord>();
  const groups = new Map<string, GroupRecord>();
  for (const event of store.events.of(args.project.id)) {
    if (event.timestamp < since) continue;
    if (askedKeyOf ? askedKeyOf(event) !== q.id : !inActor!(event.distinct_id)) continue;
    const eventPerson = index.personsByDistinctId.get(event.distinct_id);
    if (askedKeyOf && eventPerson) persons.add(eventPerson);
    for (const t of types) {
      if (t === asked) continue;
      const key = lookup.keyOf(t)(event);
      const record = key === undefined ? undefined : lookup.record(t, key);
      if (record) groups.set(`${t}\u0001${key}`, record);
    }
  }
  const people = [...persons].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id - b.id).map(toActorJson);
  const others = [...groups.values()].sort((a, b) => a.group_type_index - b.group_type_index || (a.group_key < b.group_key ? -1 : 1)).map((g) => toGroupActorJson(g, null));
  return [...people, ...others];
}

export const groupHandlers = {
  groups_list: ({ c, deps, project, url }) => {
    const q = c.request.query as Query<"groups_list">;
    const groups = deps.store.groups.list(project.id, q.group_type_index).filter(groupSearch(q.search));
    const page = pageOf(groups, q.cursor);
    if (!page) throw fail.notFound("Invalid cursor");
    return reply(200, { ...nextPage(page, url), results: page.items.map(toGroupJson) });
  },

  groups_find_retrieve: ({ c, deps, project }) => {
    const q = c.request.query as Query<"groups_find_retrieve">;
    const group = deps.store.groups.get(project.id, q.group_type_index, q.group_key);
    if (!group) throw fail.notFound();
    return reply(200, { ...toGroupJson(group), notebook: null });
  },

  groups_property_definitions_retrieve: ({ deps, project }) => {
    const byIndex = new Map<number, string[]>();
    for (const g of deps.store.groups.list(project.id)) byIndex.set(g.group_type_index, [...(byIndex.get(g.group_type_index) ?? []), ...Object.keys(g.properties)]);
    const entries = [...byIndex].filter(([, names]) => names.length).sort(([a], [b]) => a - b);
    return reply(200, Object.fromEntries(entries.map(([i, names]) => [String(i), counted(names)])));
  },

  groups_property_values_retrieve: ({ c, deps, project }) => {
    const q = c.request.query as Query<"groups_property_values_retrieve">;
    const needle = q.value?.toLowerCase();
    const values = deps.store.groups
      .list(project.id, q.group_type_index)
      .filter((g) => Object.hasOwn(g.properties, q.key))
      .map((g) => valueText(g.properties[q.key]))
      .filter((v) => needle === undefined || v.toLowerCase().includes(needle));
    return reply(200, counted(values).slice(0, PROPERTY_VALUES_LIMIT));
  },

  groups_related_retrieve: (args) => reply(200, relatedActors(args, args.c.request.query as Query<"groups_related_retrieve">)),

  groups_types_list: ({ deps, project }) => reply(200, deps.store.groups.types(project.id).map(toGroupTypeJson)),

  groups_types_update_metadata_partial_update: async ({ c, deps, project }) => {
    const rows = c.request.requestBody as Body<"groups_types_update_metadata_partial_update">;
    const known = new Set(deps.store.groups.types(project.id).map((t) => t.group_type_index));
    rows.forEach((row, i) => {
      if (!known.has(row.group_type_index)) throw fail.invalid(`${i}__group_type_index`, `The project has no group type ${row.group_type_index}.`, "does_not_exist");
    });
    const names = rows.map((r) => ({
      group_type_index: r.group_type_index,
      ...(r.name_singular !== undefined && { name_singular: r.name_singular }),
      ...(r.name_plural !== undefined && { name_plural: r.name_plural }),
    }));
    await deps.store.groups.renameTypes(project.id, names);
    return reply(200, deps.store.groups.types(project.id).map(toGroupTypeJson));
  },
} satisfies Record<string, Handler>;
