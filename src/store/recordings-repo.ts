import { EventEmitter } from "node:events";
import type { StoreCore } from "./core.ts";
import { addToSummary, emptySummary, type RecordingSummary } from "./recording-summary.ts";
import type { RecordingBlockRecord } from "./schema.ts";

/** A session's recording: its blocks in the order received and the metadata they give. */
export interface RecordingEntry {
  project_id: string;
  session_id: string;
  /** The distinct id of the recording's first block (the real service keeps the first it saw). */
  distinct_id: string;
  blocks: RecordingBlockRecord[];
  summary: RecordingSummary;
}

type Index = Map<string, Map<string, RecordingEntry>>;

function addBlock(index: Index, block: RecordingBlockRecord): void {
  let sessions = index.get(block.project_id);
  if (!sessions) index.set(block.project_id, (sessions = new Map()));
  let entry = sessions.get(block.session_id);
  if (!entry) {
    entry = { project_id: block.project_id, session_id: block.session_id, distinct_id: block.distinct_id, blocks: [], summary: emptySummary() };
    sessions.set(block.session_id, entry);
  }
  entry.blocks.push(block);
  addToSummary(entry.summary, block.events);
}

function indexOf(blocks: readonly RecordingBlockRecord[]): Index {
  const index: Index = new Map();
  for (const block of blocks) addBlock(index, block);
  return index;
}

/**
 * Session recordings: blocks appended by `/s/` (never rewriting the file), summarised as they arrive; a delete
 * rewrites the recordings file without the session. Recordings are not events: analyses never see them.
 */
/**
 * What announces new recordings. A named type, so the package's declarations name it as written: inferred, it is
 * printed with `[never]` for its event map, which newer @types/node refuse in a consumer's strict compile.
 */
export type RecordingsSignal = EventEmitter;

export function createRecordingsRepo(core: StoreCore) {
  const { dbs } = core;
  let index = indexOf(dbs.recordings.data);
  /** Emits "changed" after blocks arrive or the recordings are replaced: what waits for a recording listens to. */
  const changed: RecordingsSignal = new EventEmitter().setMaxListeners(0);
  return {
    changed,
    /** Adds received blocks; visible at once, the promise resolves once they are written. */
    append(blocks: readonly RecordingBlockRecord[]): Promise<void> {
      if (blocks.length === 0) return Promise.resolve();
      dbs.recordings.data.push(...blocks);
      for (const block of blocks) addBlock(index, block);
      changed.emit("changed");
      return dbs.appendRecordings(blocks);
    },
    /** The project's recordings, in no particular order. */
    list: (projectId: string): RecordingEntry[] => [...(index.get(projectId)?.values() ?? [])],
    get: (projectId: string, sessionId: string): RecordingEntry | undefined => index.get(projectId)?.get(sessionId),
    /** Removes a session's recording and rewrites the file; false when there was none. */
    async delete(projectId: string, sessionId: string): Promise<boolean> {
      if (!index.get(projectId)?.delete(sessionId)) return false;
      dbs.recordings.data = dbs.recordings.data.filter((b) => b.project_id !== projectId || b.session_id !== sessionId);
      await dbs.recordings.write();
      return true;
    },
    /** Rebuilds the summaries after the blocks were replaced (reset, fixture reload). */
    reindex(): void {
      index = indexOf(dbs.recordings.data);
      changed.emit("changed");
    },
  };
}

export type RecordingsRepo = ReturnType<typeof createRecordingsRepo>;
