import { EventDictionaries } from "./columns/dictionaries.ts";
import type { EventRow } from "./event-row.ts";
import { EventTable } from "./event-table.ts";
import { EventLog } from "./log.ts";
import type { EventRecord } from "./schema.ts";

/**
 * Every project's events, one column table each (src/store/event-table.ts), with one set of dictionaries, and the
 * log that numbers their changes (src/store/log.ts). Iterating yields every event as a row, project by project,
 * each project's in timestamp order.
 */
export class EventStore implements Iterable<EventRow> {
  readonly #tables = new Map<string, EventTable>();
  #log: EventLog;

  constructor(
    readonly dict: EventDictionaries = new EventDictionaries(),
    log: EventLog = new EventLog(),
  ) {
    this.#log = log;
  }

  get log(): EventLog {
    return this.#log;
  }

  /** The log read back with the events (src/store/persistence.ts). */
  useLog(log: EventLog): void {
    this.#log = log;
  }

  /** Takes over the log of the store this one replaces: the same history, every project reset. */
  continueLog(previous: EventLog): void {
    this.#log = previous;
    previous.resetAll();
  }

  static from(records: Iterable<EventRecord>): EventStore {
    const store = new EventStore();
    for (const r of records) store.add(r);
    store.trim();
    return store;
  }

  get length(): number {
    let n = 0;
    for (const t of this.#tables.values()) n += t.length;
    return n;
  }

  /** The project's table, created empty when it has none (for writes). */
  tableFor(projectId: string): EventTable {
    let table = this.#tables.get(projectId);
    if (!table) this.#tables.set(projectId, (table = new EventTable(projectId, this.dict)));
    return table;
  }

  table(projectId: string): EventTable | undefined {
    return this.#tables.get(projectId);
  }

  /** The tables by project (the column snapshot writes them). */
  tables(): [string, EventTable][] {
    return [...this.#tables];
  }

  /** A store over restored tables that share `dict`. */
  static fromTables(dict: EventDictionaries, tables: readonly EventTable[]): EventStore {
    const store = new EventStore(dict);
    for (const t of tables) store.#tables.set(t.projectId, t);
    return store;
  }

  projects(): string[] {
    return [...this.#tables.keys()];
  }

  /** Adds one event of a bulk load (a generated or read state): it belongs to the log's current number. */
  add(record: EventRecord, seq = this.#log.seq): void {
    this.tableFor(record.project_id).add(record, seq);
  }

  /** Adds a captured batch under the log's next number; returns that number. */
  append(projectId: string, records: readonly EventRecord[]): number {
    const seq = this.#log.next();
    this.tableFor(projectId).addAll(records, seq);
    return seq;
  }

  /** Removes a project's events whose distinct id `doomed` accepts (a reset in the log); true when any was removed. */
  removeDistinctIds(projectId: string, doomed: (distinctId: string) => boolean): boolean {
    const removed = this.#tables.get(projectId)?.retainDistinctIds((d) => !doomed(d)) ?? false;
    if (removed) this.#log.reset(projectId);
    return removed;
  }

  /** The newest timestamp over every project (undefined without events). */
  newestTimestamp(): number | undefined {
    let newest: number | undefined;
    for (const t of this.#tables.values()) if (t.length && (newest === undefined || t.timestampAt(t.length - 1) > newest)) newest = t.timestampAt(t.length - 1);
    return newest;
  }

  shiftTimestamps(offsetMs: number): void {
    for (const t of this.#tables.values()) t.shiftTimestamps(offsetMs);
    this.#log.resetAll();
  }

  trim(): void {
    for (const t of this.#tables.values()) t.trim();
  }

  /** The same events, changing independently from now on (O(1) per project: see EventTable.share). */
  share(): EventStore {
    const copy = new EventStore(this.dict, this.#log);
    for (const [id, t] of this.#tables) copy.#tables.set(id, t.share());
    return copy;
  }

  *[Symbol.iterator](): IterableIterator<EventRow> {
    for (const t of this.#tables.values()) yield* t;
  }

  /** Every event as a plain record (small states: tests, snapshots shown whole). */
  toArray(): EventRecord[] {
    return [...this].map((r) => r.toJSON());
  }
}
