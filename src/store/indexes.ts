import type { EventRecord, PersonRecord } from "./schema.ts";

/** Lookups rebuilt from the stored arrays; never persisted. */
export interface ProjectIndex {
  /** The project's events, timestamp ascending (analyses binary-search it). */
  events: EventRecord[];
  /** Built on first use: a million-entry map is most of the start-up cost and only event retrieval needs it. */
  readonly eventsByUuid: Map<string, EventRecord>;
  /** Built on first use: each event name's events, timestamp ascending (the events list filtered by name). */
  readonly eventsByName: Map<string, EventRecord[]>;
  personsByDistinctId: Map<string, PersonRecord>;
  personsById: Map<number, PersonRecord>;
  personsByUuid: Map<string, PersonRecord>;
  /** Adds a captured event at its place by timestamp (events may arrive out of order), in every built lookup. */
  addEvent(event: EventRecord): void;
}

/** Timestamp order; ties keep arrival order (the event goes after every event of the same instant). */
function insertByTime(list: EventRecord[], event: EventRecord): void {
  let lo = 0;
  let hi = list.length;
  if (hi === 0 || list[hi - 1]!.timestamp <= event.timestamp) {
    list.push(event);
    return;
  }
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.timestamp <= event.timestamp) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, event);
}

const emptyIndex = (): ProjectIndex => {
  let byUuid: Map<string, EventRecord> | undefined;
  let byName: Map<string, EventRecord[]> | undefined;
  return {
    events: [],
    get eventsByUuid() {
      return (byUuid ??= new Map(this.events.map((e) => [e.uuid, e])));
    },
    get eventsByName() {
      if (byName) return byName;
      byName = new Map();
      for (const e of this.events) {
        const list = byName.get(e.event);
        if (list) list.push(e);
        else byName.set(e.event, [e]);
      }
      return byName;
    },
    personsByDistinctId: new Map(),
    personsById: new Map(),
    personsByUuid: new Map(),
    addEvent(event) {
      insertByTime(this.events, event);
      byUuid?.set(event.uuid, event);
      if (!byName) return;
      const list = byName.get(event.event);
      if (list) insertByTime(list, event);
      else byName.set(event.event, [event]);
    },
  };
};

export function buildIndexes(persons: readonly PersonRecord[], events: readonly EventRecord[]): Map<string, ProjectIndex> {
  const byProject = new Map<string, ProjectIndex>();
  const of = (projectId: string) => {
    let index = byProject.get(projectId);
    if (!index) byProject.set(projectId, (index = emptyIndex()));
    return index;
  };
  for (const person of persons) indexPerson(of(person.project_id), person);
  for (const event of events) of(event.project_id).events.push(event);
  // Captured events are appended to the file in arrival order, which need not be timestamp order.
  for (const index of byProject.values()) {
    const list = index.events;
    if (!list.every((e, i) => i === 0 || list[i - 1]!.timestamp <= e.timestamp)) list.sort((a, b) => a.timestamp - b.timestamp);
  }
  return byProject;
}

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

export { emptyIndex };
