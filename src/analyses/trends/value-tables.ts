import type { SnapshotColumns } from "../shared/event-read.ts";
import { numericForm } from "../shared/property-operators.ts";
import { sessionText } from "./maths.ts";
import { keptTable } from "../shared/kept-tables.ts";

// The trend maths' tables over a column table's value ids, kept per table (../shared/kept-tables.ts).

/** The number of each value id as the property maths read it (numericForm: NaN when not a number); undefined past `maxValues`. */
export const numbersOfValues = (events: SnapshotColumns, maxValues: number): Float64Array | undefined =>
  keptTable(events, "numbers", maxValues, (n) => new Float64Array(new SharedArrayBuffer(8 * n)), (id) => numericForm(events.valueOfId(id)));

/** Session keys' codes per event table: a code, once given, stays (so kept session tables agree). */
const sessionKeys = new WeakMap<object, Map<string, number>>();

/**
 * unique_session: the session code of each value id (values whose text is equal are one session, as for the
 * general scan's key), and the code of an event without one; undefined past `maxValues`.
 */
export function sessionCodes(events: SnapshotColumns, maxValues: number): { codeOf: Int32Array; none: number; codes: number } | undefined {
  let keys = sessionKeys.get(events);
  if (!keys) sessionKeys.set(events, (keys = new Map()));
  const codeOfKey = (key: string): number => {
    let code = keys.get(key);
    if (code === undefined) keys.set(key, (code = keys.size));
    return code;
  };
  const codeOf = keptTable(events, "sessions", maxValues, (n) => new Int32Array(new SharedArrayBuffer(4 * n)), (id) => codeOfKey(sessionText(events.valueOfId(id))));
  if (codeOf === undefined) return undefined;
  const none = codeOfKey(sessionText(undefined));
  return { codeOf, none, codes: keys.size };
}

