import { fail } from "../core/errors.ts";
import { TextBody } from "../pipeline/result.ts";
import type { RecordingEntry } from "../store/recordings-repo.ts";
import { firstUrlsOfSessions, toRecordingJson } from "./recording-json.ts";
import { RECORDING_MEASURES, recordingMatcher, type ListQuery } from "./recording-filters.ts";
import { reply, type Handler, type HandlerArgs, type Query } from "./types.ts";

/**
 * The real snapshots endpoint refuses a wider range of blocks: 20 for a personal API key, this API's only
 * credential for it (SessionRecordingSnapshotsRequestSerializer; 100 for a logged-in browser).
 */
const MAX_BLOCKS_PER_REQUEST = 20;

function findRecording(args: HandlerArgs): RecordingEntry {
  const id = String(args.c.request.params.id);
  const entry = args.deps.store.recordings.get(args.project.id, id);
  if (!entry) throw fail.notFound();
  return entry;
}

/** The recordings' JSON, each `start_url` falling back to its session's first `$current_url`. */
function recordingsJson(args: HandlerArgs, entries: readonly RecordingEntry[]) {
  const { store } = args.deps;
  const withoutHref = new Set(entries.filter((e) => e.summary.first_url === null).map((e) => e.session_id));
  const urls = firstUrlsOfSessions(store, args.project.id, withoutHref);
  return entries.map((e) => toRecordingJson(e, store, urls.get(e.session_id)));
}

/** Sorted by the order's measure (start time by default), ties newest session id first for a stable page. */
function sortRecordings(entries: RecordingEntry[], order: string, direction: "ASC" | "DESC"): RecordingEntry[] {
  const measure = order === "start_time" ? (e: RecordingEntry) => e.summary.first_timestamp ?? 0 : RECORDING_MEASURES[order]!;
  const sign = direction === "ASC" ? 1 : -1;
  return entries.sort((a, b) => sign * (measure(a) - measure(b)) || b.session_id.localeCompare(a.session_id));
}

/** The blocks `start_blob_key`…`end_blob_key` (or `blob_key`) as JSON lines of `[window_id, event]`. */
function snapshotLines(entry: RecordingEntry, q: Query<"session_recordings_snapshots_retrieve">): string {
  const start = q.start_blob_key ?? q.blob_key;
  const end = q.end_blob_key ?? q.blob_key;
  if (start === undefined) throw fail.invalid("start_blob_key", "Must provide both start blob key and end blob key");
  if (end === undefined) throw fail.invalid("end_blob_key", "Must provide both start blob key and end blob key");
  if (end - start > MAX_BLOCKS_PER_REQUEST) throw fail.invalid("end_blob_key", `Cannot request more than ${MAX_BLOCKS_PER_REQUEST} blob keys at once`);
  const lines: string[] = [];
  for (const block of entry.blocks.slice(start, end + 1)) {
    for (const event of block.events) lines.push(JSON.stringify([block.window_id ?? entry.session_id, event]));
  }
  return lines.length ? `${lines.join("\n")}\n` : "";
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The sources list: one `blob_v2` source per stored block, with its events' first and last time. */
function sourcesOf(entry: RecordingEntry) {
  return {
    sources: entry.blocks.map((block, i) => {
      const times = block.events.map((e) => (e as { timestamp?: unknown } | null)?.timestamp).filter((t): t is number => typeof t === "number" && Number.isFinite(t));
      return {
        source: "blob_v2" as const,
        start_timestamp: isoOrNull(times.length ? Math.min(...times) : null),
        end_timestamp: isoOrNull(times.length ? Math.max(...times) : null),
        blob_key: String(i),
      };
    }),
  };
}

export const sessionRecordingHandlers = {
  session_recordings_list: (args) => {
    const q = args.c.request.query as Query<"session_recordings_list">;
    const { store, clock } = args.deps;
    const matches = recordingMatcher(store, args.project.id, args.project.timezone, clock.now(), q as ListQuery);
    const sorted = sortRecordings(store.recordings.list(args.project.id).filter(matches), q.order ?? "start_time", q.order_direction ?? "DESC");
    const limit = q.limit ?? 50;
    const offset = q.offset ?? 0;
    const page = sorted.slice(offset, offset + limit);
    return reply(200, { results: recordingsJson(args, page), has_next: sorted.length > offset + limit, version: 4 });
  },

  session_recordings_retrieve: (args) => reply(200, recordingsJson(args, [findRecording(args)])[0]),

  session_recordings_destroy: async (args) => {
    const entry = findRecording(args);
    await args.deps.store.recordings.delete(args.project.id, entry.session_id);
    return reply(204);
  },

  session_recordings_snapshots_retrieve: (args) => {
    const entry = findRecording(args);
    const q = args.c.request.query as Query<"session_recordings_snapshots_retrieve">;
    if (q.source === undefined) return reply(200, sourcesOf(entry));
    return { status: 200, body: new TextBody(snapshotLines(entry, q), "application/jsonl") };
  },
} satisfies Record<string, Handler>;
