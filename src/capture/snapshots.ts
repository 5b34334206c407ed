/**
 * `/s/` payloads: posthog-js's `$snapshot` events (properties `$session_id`, `$window_id`, and the rrweb events in
 * `$snapshot_data`, or `$snapshot_items` in newer SDKs) grouped into one block per session and window, as the real
 * replay capture groups a request's events per session. Pure: raw events in, blocks out, or a 400 naming the field.
 */
import { captureFail } from "./errors.ts";
import { sanitiseDistinctId } from "./normalise.ts";

type Raw = Record<string, unknown>;

export interface SnapshotBlock {
  session_id: string;
  window_id: string | null;
  distinct_id: string;
  lib: string | null;
  events: unknown[];
}

const isObject = (v: unknown): v is Raw => v !== null && typeof v === "object" && !Array.isArray(v);

/** The rrweb events of one snapshot event: a list, or one event object (older SDKs sent one per capture). */
function rrwebEventsOf(properties: Raw, index: number): unknown[] {
  const data = properties.$snapshot_items ?? properties.$snapshot_data;
  if (Array.isArray(data)) return data;
  if (isObject(data)) return [data];
  throw captureFail.missingSnapshotField(index, "$snapshot_data", "a list of rrweb events, or $snapshot_items");
}

function snapshotOf(raw: Raw, index: number): SnapshotBlock {
  const properties = isObject(raw.properties) ? raw.properties : {};
  const session = properties.$session_id;
  if (typeof session !== "string" || session.trim() === "") throw captureFail.missingSnapshotField(index, "$session_id", "a non-empty string");
  const distinctId = sanitiseDistinctId(raw.distinct_id ?? raw.$distinct_id ?? properties.distinct_id);
  if (distinctId === null) throw captureFail.missingDistinctId();
  const window = typeof properties.$window_id === "string" && properties.$window_id !== "" ? properties.$window_id : null;
  const lib = typeof properties.$lib === "string" ? properties.$lib : null;
  return { session_id: session, window_id: window, distinct_id: distinctId, lib, events: rrwebEventsOf(properties, index) };
}

/** The request's snapshot events as blocks, one per session and window, in the order first seen. */
export function snapshotBlocks(events: readonly Raw[]): SnapshotBlock[] {
  const blocks = new Map<string, SnapshotBlock>();
  events.forEach((raw, index) => {
    const snapshot = snapshotOf(raw, index);
    const key = `${snapshot.session_id}\u0000${snapshot.window_id ?? ""}`;
    const known = blocks.get(key);
    if (known) known.events.push(...snapshot.events);
    else blocks.set(key, { ...snapshot, events: [...snapshot.events] });
  });
  return [...blocks.values()];
}
