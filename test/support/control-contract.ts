import type { Backend } from "../../src/pipeline/documents.ts";
import { CONTROL_OPENAPI_PATH } from "../../src/pipeline/documents.ts";
import { loadContract } from "./contract.ts";

let loaded: Promise<InstanceType<typeof Backend>> | undefined;

/** openapi/control.yaml, loaded once per test file. */
export function controlContract(): Promise<InstanceType<typeof Backend>> {
  loaded ??= loadContract(CONTROL_OPENAPI_PATH);
  return loaded;
}

/** Validates an answer of the control API against openapi/control.yaml. */
export async function assertControlConforms(method: string, path: string, status: number, body: unknown): Promise<void> {
  const api = await controlContract();
  const operation = api.router.matchOperation({ method: method.toLowerCase(), path: path.endsWith("/") ? path : `${path}/`, headers: {} });
  if (!operation) throw new Error(`${method} ${path}: not in control.yaml`);
  if (!(String(status) in (operation.responses ?? {}))) throw new Error(`${operation.operationId}: status ${status} undocumented`);
  if (body === undefined) return;
  const result = api.validateResponse(body, operation, status);
  if (result.errors?.length) throw new Error(`${operation.operationId} ${status}: ${JSON.stringify(result.errors)}`);
}

/** A call of the control API at `base` (`headers`: an Origin or X-Admin-Token, say); its answer is checked against openapi/control.yaml. */
export async function callControl(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/_mock${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  await assertControlConforms(method, `/_mock${path.split("?")[0]}`, res.status, json);
  return { status: res.status, body: json, headers: res.headers };
}
