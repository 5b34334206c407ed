import { LRUCache } from "lru-cache";
import type { Loose } from "../../analyses/shared/filter-read.ts";
import type { Clock } from "../../core/clock.ts";
import { asClientError, fail } from "../../core/errors.ts";
import type { Schema } from "../../pipeline/api-types.ts";
import { teamIdOf } from "../../sql-engine/mirror/schema.ts";
import { MAX_CACHED_ROWS, rowsOf } from "./result-cache.ts";

/** The real service's QueryStatus (posthog/schema.py), as the document declares it for the status endpoint. */
export type QueryStatus = Omit<Schema<"QueryStatus">, "results"> & { results: Loose | null };

type Outcome = { results: Loose } | { error: unknown } | { cancelled: true };

interface Entry {
  projectId: string;
  status: QueryStatus;
  controller: AbortController;
}

/** The real service keeps a status 20 minutes after its last change (QueryStatusManager.STATUS_TTL_SECONDS). */
export const STATUS_TTL_MS = 20 * 60_000;
/**
 * Bound on statuses kept, and on the rows their results hold together: the least recently read is forgotten
 * first (and stopped, if it still runs: no one can poll it).
 */
const MAX_STATUSES = 1_000;
export const CANCELLED_MESSAGE = "The query was cancelled.";
/**
 * Queries one project may have computing or waiting for the SQL engine at once, blocking and background
 * together; one more is refused with a 429 at once instead of queueing behind the rest (issue 38: a hundred
 * `force_async` queries held the engine for everyone). The real service allows an organisation 3 API queries
 * at once (posthog/clickhouse/client/limit.py), each waiting up to 30 s for a slot, and 10 of its app's.
 */
export const MAX_QUERIES_PER_PROJECT = 10;
/** When a refused client may try again: soon, as one of its queries may end at any moment. */
const RETRY_AFTER_S = 1;

/**
 * Background queries and their statuses, per server, keyed by project and query id (another project's id is
 * unknown). A background run never rejects: its failure becomes the status's `error`, with `error_message`
 * when it is the client's error (what the real service exposes) and null otherwise (logged).
 */
export function createQueryStatuses(clock: Clock, logError: (message: string, err: unknown) => void, maxPerProject = MAX_QUERIES_PER_PROJECT) {
  const entries = new LRUCache<string, Entry>({
    max: MAX_STATUSES,
    maxSize: MAX_CACHED_ROWS,
    sizeCalculation: (entry) => rowsOf(entry.status.results),
    dispose: (entry, _key, reason) => reason === "evict" && entry.controller.abort(),
  });
  /** Blocking queries run under a client's id: no status, but a DELETE of that id cancels them too. */
  const blocking = new Map<string, AbortController>();
  const keyOf = (projectId: string, id: string) => `${projectId}\u0000${id}`;
  /** Queries computing or waiting, by project. */
  const inFlight = new Map<string, number>();
  const iso = () => new Date(clock.now()).toISOString();
  const touch = (status: QueryStatus) => void (status.expiration_time = new Date(clock.now() + STATUS_TTL_MS).toISOString());

  function created(projectId: string, id: string): Entry {
    const now = iso();
    const status: QueryStatus = {
      id, query_async: true, team_id: teamIdOf(projectId), complete: false, error: false, error_message: null, results: null,
      start_time: now, pickup_time: now, end_time: null, expiration_time: now, query_progress: null, task_id: null,
      dashboard_id: null, insight_id: null, labels: null,
    };
    touch(status);
    const entry = { projectId, status, controller: new AbortController() };
    entries.set(keyOf(projectId, id), entry);
    return entry;
  }

  function finish(entry: Entry, outcome: Outcome): void {
    const status = entry.status;
    if (status.complete) return;
    status.complete = true;
    status.end_time = iso();
    touch(status);
    if ("results" in outcome) {
      status.results = outcome.results;
      // Weighed again with its results (a status forgotten meanwhile stays forgotten).
      const key = keyOf(entry.projectId, status.id);
      if (entries.peek(key) === entry) entries.set(key, entry);
      return;
    }
    status.error = true;
    if ("cancelled" in outcome) {
      status.error_message = CANCELLED_MESSAGE;
      return;
    }
    const known = asClientError(outcome.error);
    status.error_message = known ? known.body.detail : null;
    if (!known) logError(`background query ${status.id}`, outcome.error);
  }

  /** Counts a query of the project in until its release; past the project's share, the 429 that names it. */
  function admit(projectId: string): () => void {
    const count = inFlight.get(projectId) ?? 0;
    if (count >= maxPerProject) throw fail.tooManyQueries(maxPerProject, projectId, RETRY_AFTER_S);
    inFlight.set(projectId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (inFlight.get(projectId) ?? 1) - 1;
      if (left > 0) inFlight.set(projectId, left);
      else inFlight.delete(projectId);
    };
  }

  function find(projectId: string, id: string): Entry | undefined {
    const entry = entries.get(keyOf(projectId, id));
    if (entry && Date.parse(entry.status.expiration_time) <= clock.now()) {
      entries.delete(keyOf(projectId, id));
      return undefined;
    }
    return entry;
  }

  return {
    /**
     * Starts `run` in the background under `id` and answers its status at once. An id already known is answered
     * as it stands unless `restart` (the real service does not submit a query id twice without a refresh). A
     * project past its share is refused (429) before anything starts.
     */
    start(projectId: string, id: string, run: (signal: AbortSignal) => Promise<Loose>, restart: boolean): QueryStatus {
      const known = find(projectId, id);
      if (known && !restart) return known.status;
      const release = admit(projectId);
      if (known && !known.status.complete) cancel(known);
      const entry = created(projectId, id);
      const settle = (outcome: Outcome) => {
        try {
          finish(entry, outcome);
        } catch (e) {
          logError(`background query ${id}`, e);
        }
      };
      void Promise.resolve()
        .then(() => run(entry.controller.signal))
        .then((results) => settle({ results }), (error: unknown) => settle({ error }))
        .finally(release);
      return entry.status;
    },
    /** Records a query computed within its request (insight kinds) as a complete status. */
    completed(projectId: string, id: string, results: Loose): QueryStatus {
      const entry = created(projectId, id);
      finish(entry, { results });
      return entry.status;
    },
    /**
     * Runs a blocking query under the client's id, so that a DELETE of the id cancels it (its request then fails).
     * Background and blocking queries count against the same share of the project.
     */
    async runBlocking<T>(projectId: string, id: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
      const release = admit(projectId);
      const key = keyOf(projectId, id);
      const controller = new AbortController();
      blocking.set(key, controller);
      try {
        return await run(controller.signal);
      } finally {
        release();
        if (blocking.get(key) === controller) blocking.delete(key);
      }
    },
    get: (projectId: string, id: string): QueryStatus | undefined => find(projectId, id)?.status,
    /** Stops a running query (its ClickHouse query is killed) and answers the real service's message. */
    cancel(projectId: string, id: string): string {
      blocking.get(keyOf(projectId, id))?.abort();
      const entry = find(projectId, id);
      if (entry?.status.complete) return "Query already complete";
      if (entry) cancel(entry);
      return "Cancelled query on clickhouse";
    },
    /** Stops every running query and forgets every status (`/_mock/reset/`). */
    clear(): void {
      for (const entry of entries.values()) entry.controller.abort();
      for (const controller of blocking.values()) controller.abort();
      entries.clear();
      blocking.clear();
    },
  };

  function cancel(entry: Entry): void {
    finish(entry, { cancelled: true });
    entry.controller.abort();
  }
}

export type QueryStatuses = ReturnType<typeof createQueryStatuses>;
