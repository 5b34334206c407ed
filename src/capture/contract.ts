import { CAPTURE_OPENAPI_PATH, loadDocument, type Backend } from "../pipeline/documents.ts";

let loading: Promise<Backend> | undefined;

/**
 * openapi/capture.yaml as a router, loaded once per process: capture's routes are a table (for speed,
 * capture/transport.ts), so this is read by steering (each route's operation, its documented statuses and
 * examples) and by the overrides.
 */
export const captureContract = (): Promise<Backend> => (loading ??= loadDocument(CAPTURE_OPENAPI_PATH));
