import type { ColumnArrays } from "./columns/column-arrays.ts";
import type { EventTable } from "./event-table.ts";
import type { EventRecord, Properties } from "./schema.ts";

/**
 * One stored event as an EventRecord: its fields are read from the columns when asked. `prop(key)` reads one
 * property without building the object (what analyses use).
 */
export class EventRow implements EventRecord {
  constructor(
    readonly table: EventTable,
    private readonly cols: ColumnArrays,
    /** Position in the table when read (rows are never moved under a row object, except a cursor's). */
    public position: number,
  ) {}

  get project_id(): string {
    return this.table.projectId;
  }
  get uuid(): string {
    return this.table.uuidAt(this.position, this.cols);
  }
  get event(): string {
    return this.table.dict.names.values[this.cols.name[this.position]!]!;
  }
  get distinct_id(): string {
    return this.table.dict.distinctIds.values[this.cols.did[this.position]!]!;
  }
  get timestamp(): number {
    return this.cols.ts[this.position]!;
  }
  get elements_chain(): string {
    return this.table.dict.chains.values[this.cols.chain[this.position]!]!;
  }
  /** The log number of the batch that wrote it (not part of the record). */
  get seq(): number {
    return this.cols.seq[this.position]!;
  }
  /** Built on each read (rows are made by the million and must stay three fields small): read it once. */
  get properties(): Properties {
    return this.table.propertiesAt(this.position, this.cols);
  }
  prop(key: string): unknown {
    return this.table.propertyAt(this.position, key, this.cols);
  }
  /** The plain record (for JSON: getters are not own properties). */
  toJSON(): EventRecord {
    return {
      uuid: this.uuid,
      project_id: this.project_id,
      event: this.event,
      distinct_id: this.distinct_id,
      timestamp: this.timestamp,
      properties: this.properties,
      elements_chain: this.elements_chain,
    };
  }
}
