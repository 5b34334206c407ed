/**
 * `GET /api/surveys/?token=`: what posthog-js's surveys read (src/surveys/public.ts), authenticated by the project
 * token in the query as the real endpoint (no token, or an unknown one: 401).
 */
import { authenticate } from "../pipeline/authenticate.ts";
import { publicSurveysAnswer } from "../surveys/public.ts";
import type { CaptureDeps, CaptureRoute } from "./request.ts";

export function publicSurveysRoute(deps: CaptureDeps, operationId: string): CaptureRoute {
  return {
    operationId,
    handle(req) {
      const project = authenticate({ scheme: "project_token", token: req.query.token || req.query.api_key }, deps.store);
      return { status: 200, body: publicSurveysAnswer(deps.store, deps.forced, project, new Date(deps.clock.now()).toISOString()) };
    },
  };
}
