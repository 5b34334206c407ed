import { newBackend, type Backend } from "../http/api.ts";
import { projectFile } from "../util/project-files.ts";

export const CAPTURE_OPENAPI_PATH = projectFile("openapi/capture.yaml");

let loading: Promise<Backend> | undefined;

/**
 * openapi/capture.yaml as a router, loaded once per process: the door answers capture by hand (for speed), so
 * this is only read by steering (which operation a request is, its documented statuses and examples).
 */
export function captureContract(): Promise<Backend> {
  loading ??= (async () => {
    const api = newBackend(CAPTURE_OPENAPI_PATH, { handlers: {} });
    await api.init();
    return api;
  })();
  return loading;
}
