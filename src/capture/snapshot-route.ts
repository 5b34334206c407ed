/**
 * `/s/`: session replay's snapshot batches, decoded as `/e/` decodes (gzip-js, base64, lz64, forms), authenticated
 * by the payload's token, and stored as the project's recording blocks (never as events: no analysis sees them).
 */
import { toApiError } from "../core/errors.ts";
import { authenticate } from "../pipeline/authenticate.ts";
import { TextBody } from "../pipeline/result.ts";
import type { RecordingBlockRecord } from "../store/schema.ts";
import { BATCH_LIMIT, bodyReader } from "./body.ts";
import { capturedEntry } from "./captured-entries.ts";
import { decodeCapture } from "./decode.ts";
import { toBatch } from "./normalise.ts";
import { DECODED_LOG_LIMIT, type CaptureDeps, type CaptureRoute } from "./request.ts";
import { snapshotBlocks } from "./snapshots.ts";

/** The replay capture's limit is the batch one: a full snapshot of a large page runs to megabytes. */
const SNAPSHOT_LIMIT = BATCH_LIMIT;

export function snapshotRoute(deps: CaptureDeps, operationId: string): CaptureRoute {
  const readBody = bodyReader(SNAPSHOT_LIMIT);
  return {
    operationId,
    async handle(req) {
      let decoded: unknown = null;
      // Snapshots are logged as requests, never as captured events (a wait for events must not see them).
      const log = (status: number, error: string | null) =>
        deps.captured.push(capturedEntry(req, status, req.body.length <= DECODED_LOG_LIMIT ? decoded : null, error), []);
      try {
        req.body = await readBody(req.raw, req.res);
        decoded = decodeCapture({ body: req.body, contentType: req.header("content-type"), contentEncoding: undefined, query: req.query }, SNAPSHOT_LIMIT);
        // Decoded once: the request log keeps a small payload instead of parsing the bytes again.
        if (req.body.length <= DECODED_LOG_LIMIT) req.decoded = decoded;
        const batch = toBatch(decoded);
        const project = authenticate({ scheme: "project_token", token: batch.token }, deps.store);
        const receivedAt = new Date(deps.clock.now()).toISOString();
        const blocks: RecordingBlockRecord[] = snapshotBlocks(batch.events).map((b) => ({ project_id: project.id, ...b, received_at: receivedAt }));
        await deps.store.recordings.append(blocks);
        log(200, null);
        return req.query.beacon === "1" ? { status: 204 } : { status: 200, body: new TextBody('{"status":1}', "application/json") };
      } catch (e) {
        const refusal = toApiError(e);
        if (refusal) log(refusal.status, refusal.body.detail);
        throw e;
      }
    },
  };
}
