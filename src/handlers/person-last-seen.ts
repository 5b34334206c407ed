import type { PersonRecord } from "../store/schema.ts";
import type { Store } from "../store/store.ts";

/** Latest event time per distinct id of one project, for one data version. */
interface LastSeen {
  version: number;
  byDistinctId: Map<string, number>;
}

const cache = new WeakMap<Store, Map<string, LastSeen>>();

/** One pass over the timestamp and distinct-id columns: rows are in time order, so the last row of an id is its latest. */
function scan(store: Store, projectId: string): Map<string, number> {
  const table = store.events.of(projectId);
  const latest = new Map<number, number>();
  for (let i = 0; i < table.length; i++) latest.set(table.distinctIdIdAt(i), table.timestampAt(i));
  const byDistinctId = new Map<string, number>();
  for (const [id, ms] of latest) byDistinctId.set(table.distinctIdOfId(id), ms);
  return byDistinctId;
}

/**
 * `last_seen_at` of persons: the time of the latest event over their distinct ids, null without events.
 * Computed once per project data version (`store.analysisData.version`), which changes with every event written.
 */
export function lastSeenOf(store: Store, projectId: string): (person: PersonRecord) => string | null {
  const perProject = cache.get(store) ?? new Map<string, LastSeen>();
  cache.set(store, perProject);
  const version = store.analysisData.version(projectId);
  let known = perProject.get(projectId);
  if (!known || known.version !== version) {
    known = { version, byDistinctId: scan(store, projectId) };
    perProject.set(projectId, known);
  }
  const { byDistinctId } = known;
  return (person) => {
    let latest = -Infinity;
    for (const id of person.distinct_ids) latest = Math.max(latest, byDistinctId.get(id) ?? -Infinity);
    return Number.isFinite(latest) ? new Date(latest).toISOString() : null;
  };
}
