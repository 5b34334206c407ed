import type { Backend } from "../../src/pipeline/documents.ts";
import { projectFile } from "../../src/util/project-files.ts";
import { loadContract } from "./contract.ts";

export const CAPTURE_OPENAPI_PATH = projectFile("openapi/capture.yaml");

let loaded: Promise<InstanceType<typeof Backend>> | undefined;

/** openapi/capture.yaml, loaded once per test file. */
export function captureContract(): Promise<InstanceType<typeof Backend>> {
  loaded ??= loadContract(CAPTURE_OPENAPI_PATH);
  return loaded;
}

/** Fails unless a capture-surface answer is documented in openapi/capture.yaml and its JSON body conforms. */
export async function assertCaptureConforms(method: string, path: string, status: number, contentType: string | null, body: unknown): Promise<void> {
  const api = await captureContract();
  const bare = path.split("?")[0]!;
  const operation =
    api.router.matchOperation({ method: method.toLowerCase(), path: bare, headers: {} }) ??
    api.router.matchOperation({ method: method.toLowerCase(), path: bare.endsWith("/") ? bare : `${bare}/`, headers: {} });
  if (!operation) throw new Error(`${method} ${path}: not in capture.yaml`);
  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, unknown> }>;
  const documented = responses[String(status)];
  if (!documented) throw new Error(`${operation.operationId}: status ${status} undocumented`);
  const content = documented.content ?? {};
  if (Object.keys(content).length === 0) {
    if (body !== undefined && body !== "") throw new Error(`${operation.operationId} ${status}: documented without a body`);
    return;
  }
  const mediaType = (contentType ?? "").split(";")[0]!.trim();
  if (!content[mediaType]) throw new Error(`${operation.operationId} ${status}: media type "${mediaType}" is not documented`);
  if (mediaType !== "application/json") return;
  const result = api.validateResponse(body, operation, status);
  if (result.errors?.length) throw new Error(`${operation.operationId} ${status}: ${JSON.stringify(result.errors)} body: ${JSON.stringify(body).slice(0, 500)}`);
}

/** Sends a capture-surface request and checks the answer against capture.yaml. */
export async function captureRequest(base: string, method: string, path: string, init: { body?: string | Buffer; headers?: Record<string, string> } = {}) {
  const res = await fetch(base + path, { method, body: init.body, headers: init.headers });
  const text = await res.text();
  const contentType = res.headers.get("content-type");
  const body: any = contentType?.includes("json") && text ? JSON.parse(text) : text;
  await assertCaptureConforms(method, path, res.status, contentType, body === "" ? undefined : body);
  return { status: res.status, body, headers: res.headers };
}
