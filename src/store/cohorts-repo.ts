import { randomUUID } from "node:crypto";
import type { StoreCore } from "./core.ts";
import { resolveCohorts } from "./cohorts.ts";
import type { ActivityChange, ActivityRecord, CohortRecord, Properties, ResolvedCohort } from "./schema.ts";

/** Fields a client may write on a cohort; members, times and the creator are the server's. */
export const COHORT_WRITABLE = ["name", "description", "filters", "is_static", "deleted"] as const;
export type CohortInput = Partial<Pick<CohortRecord, (typeof COHORT_WRITABLE)[number]>>;

/** Cohorts, kept in the main store file; every write moves the project's data version (analyses read members). */
export function createCohortsRepo(core: StoreCore) {
  const { dbs, meta, nowIso, clock } = core;
  const live = (c: CohortRecord) => !c.deleted;
  const nextId = () => {
    const counters = meta().counters;
    const highest = Math.max(counters.cohort ?? 0, ...meta().cohorts.map((c) => c.id));
    return (counters.cohort = highest + 1);
  };
  const activity = (cohort: CohortRecord, kind: string, userId: number | null, changes: ActivityChange[] | null): ActivityRecord => ({
    id: randomUUID(),
    project_id: cohort.project_id,
    scope: "Cohort",
    item_id: String(cohort.id),
    activity: kind,
    user_id: userId,
    detail: { name: cohort.name, short_id: null, changes, trigger: null, type: null },
    created_at: nowIso(),
  });
  const saved = async (cohort: CohortRecord, entry: ActivityRecord | null) => {
    core.bump(cohort.project_id);
    await Promise.all([dbs.meta.write(), core.logActivity(entry ? [entry] : [])]);
    return cohort;
  };

  // Resolved per data version and minute (relative windows move with the clock).
  const resolved = new Map<string, { key: string; cohorts: ResolvedCohort[] }>();
  const resolvedOf = (projectId: string): ResolvedCohort[] => {
    const now = clock.now();
    const key = `${core.version(projectId)}:${Math.floor(now / 60_000)}:${meta().cohorts.length}`;
    const known = resolved.get(projectId);
    if (known?.key === key) return known.cohorts;
    const index = core.indexOf(projectId);
    const counts = new Map<string, Map<number, number>>();
    const eventCounts = (event: string, since: number, until: number) => {
      const memoKey = `${since}:${until}:${event}`;
      let byPerson = counts.get(memoKey);
      if (byPerson) return byPerson;
      counts.set(memoKey, (byPerson = new Map()));
      const table = index.events;
      for (const i of table.positionsOfName(event)) {
        const ts = table.timestampAt(i);
        if (ts < since || ts > until) continue;
        const person = index.personsByDistinctId.get(table.distinctIdOfId(table.distinctIdIdAt(i)));
        if (person) byPerson.set(person.id, (byPerson.get(person.id) ?? 0) + 1);
      }
      return byPerson;
    };
    const own = meta().cohorts.filter((c) => c.project_id === projectId);
    const cohorts = resolveCohorts(own, { persons: index.personsById, eventCounts, now: new Date(now) });
    resolved.set(projectId, { key, cohorts });
    return cohorts;
  };

  return {
    /** A project's live cohorts, newest first (the real list's order), then by id descending. */
    list: (projectId: string): CohortRecord[] =>
      meta()
        .cohorts.filter((c) => c.project_id === projectId && live(c))
        .sort((a, b) => (b.created_at ?? "").localeCompare(a.created_at ?? "") || b.id - a.id),
    get: (projectId: string, id: number, opts: { includeDeleted?: boolean } = {}): CohortRecord | undefined =>
      meta().cohorts.find((c) => c.id === id && c.project_id === projectId && (opts.includeDeleted || live(c))),
    /** Live cohorts with their members (dynamic ones evaluated against the current persons and events). */
    resolved: resolvedOf,
    forgetResolved: () => resolved.clear(),

    async create(projectId: string, input: CohortInput & { name: string }, personIds: number[], userId: number | null): Promise<CohortRecord> {
      const isStatic = input.is_static ?? false;
      const cohort: CohortRecord = {
        project_id: projectId,
        id: nextId(),
        name: input.name,
        description: input.description ?? "",
        is_static: isStatic,
        deleted: input.deleted ?? false,
        created_by: userId,
        created_at: nowIso(),
        ...(isStatic ? { person_ids: [...new Set(personIds)].sort((a, b) => a - b) } : { filters: input.filters as { properties: Properties } }),
      };
      meta().cohorts.push(cohort);
      return saved(cohort, activity(cohort, "created", userId, null));
    },

    /** Applies the written fields, logging each change; a cohort made static keeps its current members. */
    async update(cohort: CohortRecord, input: CohortInput, members: readonly number[], userId: number | null): Promise<CohortRecord> {
      const changes: ActivityChange[] = [];
      const record = cohort as unknown as Record<string, unknown>;
      for (const field of COHORT_WRITABLE) {
        if (!(field in input)) continue;
        const after = (input as Record<string, unknown>)[field];
        if (JSON.stringify(record[field]) === JSON.stringify(after)) continue;
        changes.push({ type: "Cohort", action: "changed", field, before: record[field], after });
        record[field] = after;
      }
      if (cohort.is_static && cohort.person_ids === undefined) cohort.person_ids = [...members];
      const kind = changes.some((c) => c.field === "deleted") ? (cohort.deleted ? "deleted" : "restored") : "updated";
      return saved(cohort, changes.length ? activity(cohort, kind, userId, changes) : null);
    },

    /** Adds persons to a static cohort (those already in it stay once). */
    async addPersons(cohort: CohortRecord, personIds: readonly number[], userId: number | null, kind = "persons_added_manually"): Promise<CohortRecord> {
      cohort.person_ids = [...new Set([...(cohort.person_ids ?? []), ...personIds])].sort((a, b) => a - b);
      return saved(cohort, activity(cohort, kind, userId, [{ type: "Cohort", action: "changed" }]));
    },

    /** Removes one person from a static cohort; false when the person was not in it. */
    async removePerson(cohort: CohortRecord, personId: number, userId: number | null): Promise<boolean> {
      const before = cohort.person_ids ?? [];
      if (!before.includes(personId)) return false;
      cohort.person_ids = before.filter((id) => id !== personId);
      await saved(cohort, activity(cohort, "person_removed_manually", userId, [{ type: "Cohort", action: "changed" }]));
      return true;
    },
  };
}

export type CohortsRepo = ReturnType<typeof createCohortsRepo>;
