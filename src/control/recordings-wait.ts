/**
 * `POST /_mock/recordings/wait/`: answers once a session recording with at least `snapshots` rrweb events has
 * arrived through `/s/` (posthog-js flushes its buffer every few seconds), or at `timeout_ms` with what there is.
 * Woken by the recordings' arrival, never polled.
 */
import type { Context } from "openapi-backend";
import type { RecordingEntry } from "../store/recordings-repo.ts";
import { durationSeconds } from "../store/recording-summary.ts";
import type { Store } from "../store/store.ts";
import { WAIT_DEFAULT_MS, waitFor, type WaitStatus } from "./waiting.ts";

export interface RecordingWaitRequest {
  /** Only the recording of this session. */
  session_id?: string;
  /** Only recordings of this distinct id. */
  distinct_id?: string;
  /** Project id; the first project when absent. */
  project_id?: string;
  /** At least this many rrweb events in the recording (default 1). */
  snapshots?: number;
  timeout_ms?: number;
}

const toWaitedRecording = (e: RecordingEntry) => ({
  session_id: e.session_id,
  distinct_id: e.distinct_id,
  snapshot_count: e.summary.event_count,
  recording_duration: durationSeconds(e.summary),
  click_count: e.summary.click_count,
  keypress_count: e.summary.keypress_count,
  console_error_count: e.summary.console_error_count,
});

export type WaitedRecording = ReturnType<typeof toWaitedRecording>;

/** The waits over a store's recordings; `close` answers every open one at once (the server is closing). */
export function createRecordingWaits(store: Store) {
  const closing = new AbortController();
  const matching = (r: RecordingWaitRequest) => {
    const projectId = r.project_id ?? store.projects.all()[0]?.id ?? "";
    const least = r.snapshots ?? 1;
    return store.recordings
      .list(projectId)
      .filter((e) => (r.session_id === undefined || e.session_id === r.session_id) && (r.distinct_id === undefined || e.distinct_id === r.distinct_id) && e.summary.event_count >= least)
      .map(toWaitedRecording);
  };
  return {
    async wait(request: RecordingWaitRequest, signal?: AbortSignal): Promise<{ status: WaitStatus; recordings: WaitedRecording[] }> {
      const stop = signal ? AbortSignal.any([signal, closing.signal]) : closing.signal;
      const { status, found } = await waitFor(() => matching(request), 1, request.timeout_ms ?? WAIT_DEFAULT_MS, { emitter: store.recordings.changed, event: "changed" }, stop);
      return { status, recordings: found };
    },
    close: () => closing.abort(),
  };
}

export type RecordingWaits = ReturnType<typeof createRecordingWaits>;

/** The control API's operation, spread into the control router's handlers. */
export const recordingWaitHandlers = {
  control_recordings_wait: (c: Context, control: { recordings: RecordingWaits }) =>
    control.recordings.wait(c.request.requestBody as RecordingWaitRequest, (c.request as { signal?: AbortSignal }).signal),
};
