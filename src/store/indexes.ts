import type { EventStore } from "./event-store.ts";
import { EventTable } from "./event-table.ts";
import type { PersonRecord } from "./schema.ts";

/** Lookups rebuilt from the stored state; never persisted. */
export interface ProjectIndex {
  /** The project's events, timestamp ascending (analyses binary-search it); the store's own table. */
  events: EventTable;
  personsByDistinctId: Map<string, PersonRecord>;
  personsById: Map<number, PersonRecord>;
  personsByUuid: Map<string, PersonRecord>;
}

const emptyIndex = (events: EventTable): ProjectIndex => ({
  events,
  personsByDistinctId: new Map(),
  personsById: new Map(),
  personsByUuid: new Map(),
});

/** An index for a project that has nothing yet (reads only: its table belongs to no store). */
export const noIndex = (projectId: string): ProjectIndex => emptyIndex(new EventTable(projectId));

export function buildIndexes(persons: readonly PersonRecord[], events: EventStore): Map<string, ProjectIndex> {
  const byProject = new Map<string, ProjectIndex>();
  const of = (projectId: string) => {
    let index = byProject.get(projectId);
    if (!index) byProject.set(projectId, (index = emptyIndex(events.tableFor(projectId))));
    return index;
  };
  for (const projectId of events.projects()) of(projectId);
  for (const person of persons) indexPerson(of(person.project_id), person);
  return byProject;
}

/** The index of a project that had no data yet, over the store's (new) table for it: for writes. */
export const indexOver = (events: EventStore, projectId: string): ProjectIndex => emptyIndex(events.tableFor(projectId));

export function indexPerson(index: ProjectIndex, person: PersonRecord): void {
  index.personsById.set(person.id, person);
  index.personsByUuid.set(person.uuid, person);
  for (const id of person.distinct_ids) index.personsByDistinctId.set(id, person);
}

export function unindexPerson(index: ProjectIndex, person: PersonRecord): void {
  index.personsById.delete(person.id);
  index.personsByUuid.delete(person.uuid);
  for (const id of person.distinct_ids) {
    if (index.personsByDistinctId.get(id) === person) index.personsByDistinctId.delete(id);
  }
}
