import type { StoreCore } from "./core.ts";
import type { EventTable } from "./event-table.ts";
import type { EventRecord } from "./schema.ts";

/**
 * Events are read-only through the API; they are written by capture (appended) and by the scheduled deletion of
 * deleted persons' events (the one rewrite of the events file).
 */
/** Told of every capture's events once they are in the project's table (the SQL engine's mirror follows them). */
export type AppendListener = (projectId: string, table: EventTable, events: readonly EventRecord[]) => void;

export function createEventsRepo(core: StoreCore) {
  const { dbs, meta } = core;
  const appendListeners = new Set<AppendListener>();
  return {
    /** Calls `listener` after each append; returns the function that stops it. */
    onAppend(listener: AppendListener): () => void {
      appendListeners.add(listener);
      return () => appendListeners.delete(listener);
    },
    /** The project's events, timestamp ascending. */
    of: (projectId: string): EventTable => core.indexOf(projectId).events,
    /** Positions (in `of`) of the project's events of one name, ascending. */
    positionsNamed: (projectId: string, name: string): Int32Array => core.indexOf(projectId).events.positionsOfName(name),
    get: (projectId: string, uuid: string): EventRecord | undefined => {
      const table = core.indexOf(projectId).events;
      const at = table.positionOfUuid(uuid);
      return at === -1 ? undefined : table.at(at);
    },

    /**
     * Adds captured events: appended to the events file (never rewriting it), placed by timestamp in the
     * project's index, and the project's analyses made stale. Visible to every read at once; the promise
     * resolves once the lines are written.
     */
    append(projectId: string, events: readonly EventRecord[]): Promise<void> {
      if (events.length === 0) return Promise.resolve();
      const table = core.indexFor(projectId).events;
      const seq = dbs.events.data.append(projectId, events);
      core.bump(projectId);
      for (const listener of appendListeners) listener(projectId, table, events);
      return dbs.appendEvents(events, seq);
    },

    /** Runs the queued deletions whose time has come (by the store's clock); true when any ran. */
    async runDueDeletions(): Promise<boolean> {
      const queue = meta().pending_deletions;
      if (queue.length === 0) return false;
      const now = core.clock.now();
      const due = queue.filter((d) => Date.parse(d.run_at) <= now);
      if (due.length === 0) return false;
      for (const projectId of new Set(due.map((d) => d.project_id))) {
        const doomed = new Set(due.filter((d) => d.project_id === projectId).flatMap((d) => d.distinct_ids));
        dbs.events.data.removeDistinctIds(projectId, (id) => doomed.has(id));
      }
      meta().pending_deletions = queue.filter((d) => !due.includes(d));
      core.reindex();
      for (const projectId of new Set(due.map((d) => d.project_id))) core.bump(projectId);
      await Promise.all([dbs.events.write(), dbs.meta.write()]);
      return true;
    },
    /** The earliest pending run, for callers that want to know whether a check is worth it. */
    nextDeletionAt: (): number | null => {
      const times = meta().pending_deletions.map((d) => Date.parse(d.run_at));
      return times.length ? Math.min(...times) : null;
    },
  };
}
