/**
 * What reading one property needs of an event: a column table's row (src/store/event-table.ts) reads the property
 * alone through `prop`, without building `properties`; a plain record (src/store/schema.ts `EventRecord`) has them.
 */
export interface PropertyReadable {
  properties: Record<string, unknown>;
  prop?(key: string): unknown;
}

/** One event property: a column table's row reads it alone, a plain record from its object. */
export const eventProperty = (event: PropertyReadable, key: string): unknown => (event.prop ? event.prop(key) : event.properties[key]);
