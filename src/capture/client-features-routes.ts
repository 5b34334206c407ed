/**
 * `GET /api/early_access_features/?token=` and `GET /api/web_experiments/?token=`: what posthog-js's
 * `getEarlyAccessFeatures` and web experiments read, authenticated by the project token in the query as the real
 * endpoints (no token, or an unknown one: 401). References: products/early_access_features/backend/api.py
 * `early_access_features`, posthog/api/web_experiment.py `web_experiments`.
 */
import { parse as parseQueryString } from "node:querystring";
import { authenticate } from "../pipeline/authenticate.ts";
import type { Store } from "../store/store.ts";
import type { CaptureDeps, CaptureRequest, CaptureRoute } from "./request.ts";

/** Every `stage` of the query (posthog-js repeats it, one per asked stage); none asked: `beta`, as the real endpoint. */
function stagesAsked(req: CaptureRequest): string[] {
  const url = req.raw.url ?? "";
  const q = url.indexOf("?");
  const value = q === -1 ? undefined : parseQueryString(url.slice(q + 1)).stage;
  const stages = value === undefined ? [] : Array.isArray(value) ? value : [value];
  return stages.length ? stages : ["beta"];
}

/** posthog-js's `EarlyAccessFeature`: the real minimal serializer's camel-cased fields. */
function publicFeatures(store: Store, projectId: string, stages: readonly string[]) {
  return store.earlyAccess
    .list(projectId)
    .filter((f) => stages.includes(f.stage))
    .map((f) => {
      const flag = f.feature_flag_id === null ? undefined : store.flags.get(projectId, f.feature_flag_id, { includeDeleted: true });
      return { id: f.id, name: f.name, description: f.description, stage: f.stage, documentationUrl: f.documentation_url, flagKey: flag?.key ?? null };
    });
}

/** posthog-js's `WebExperiment`: id, name, created_at, the flag's key and the variants with their transforms. */
function publicExperiments(store: Store, projectId: string) {
  return store.webExperiments.list(projectId).map((e) => {
    const flag = store.flags.get(projectId, e.feature_flag_id, { includeDeleted: true });
    return { id: e.id, name: e.name, created_at: e.created_at, feature_flag_key: flag?.key ?? "", variants: e.variants };
  });
}

const projectOf = (req: CaptureRequest, deps: CaptureDeps) => authenticate({ scheme: "project_token", token: req.query.token || req.query.api_key }, deps.store);

export function publicEarlyAccessRoute(deps: CaptureDeps, operationId: string): CaptureRoute {
  return {
    operationId,
    handle(req) {
      const project = projectOf(req, deps);
      return { status: 200, body: { earlyAccessFeatures: publicFeatures(deps.store, project.id, stagesAsked(req)) } };
    },
  };
}

export function publicWebExperimentsRoute(deps: CaptureDeps, operationId: string): CaptureRoute {
  return {
    operationId,
    handle(req) {
      const project = projectOf(req, deps);
      return { status: 200, body: { experiments: publicExperiments(deps.store, project.id) } };
    },
  };
}
