/**
 * The minimal `/flags`, `/decide` and remote-config answers that keep the client libraries quiet: no feature
 * flags, no session recording, no site apps (reference: ingestion-persons-events §1.10).
 */
import { randomUUID } from "node:crypto";

const SUPPORTED_COMPRESSION = ["gzip", "gzip-js"];

/** What posthog-js reads from remote config (and from `/flags/?config=true`). */
export const remoteConfig = (token: string) => ({
  token,
  supportedCompression: SUPPORTED_COMPRESSION,
  hasFeatureFlags: false,
  captureDeadClicks: false,
  capturePerformance: false,
  autocapture_opt_out: false,
  autocaptureExceptions: false,
  analytics: { endpoint: "/e/" },
  elementsChainAsString: true,
  errorTracking: { autocaptureExceptions: false, suppressionRules: [] },
  sessionRecording: false,
  heatmaps: false,
  surveys: false,
  defaultIdentifiedOnly: true,
  siteApps: [],
});

/** `/array/{token}/config.js`: the script form posthog-js loads, which registers the same config. */
export const remoteConfigScript = (token: string) =>
  `(function(){window._POSTHOG_REMOTE_CONFIG=window._POSTHOG_REMOTE_CONFIG||{};` +
  `window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}]={config:${JSON.stringify(remoteConfig(token))},siteApps:[]};})();`;

/** `/flags/?v=2` answers the v2 shape; without `v` (or v=1) the v1 shape the SDKs also accept. */
export function flagsAnswer(version: number, token: string | undefined) {
  const base = token ? remoteConfig(token) : { supportedCompression: SUPPORTED_COMPRESSION, sessionRecording: false };
  if (version >= 2) return { ...base, flags: {}, errorsWhileComputingFlags: false, requestId: randomUUID() };
  return { ...base, featureFlags: {}, featureFlagPayloads: {}, errorsWhileComputingFlags: false };
}

/** `/decide/?v=3|4` (older SDKs): the v1 flags shape plus the old config keys. */
export const decideAnswer = (token: string | undefined) => ({
  ...flagsAnswer(1, token),
  config: { enable_collect_everything: true },
  toolbarParams: {},
  isAuthenticated: false,
  siteApps: [],
});
