/**
 * The `/flags`, `/decide` and remote-config answers: evaluated feature flags, and a config without session
 * recording or site apps (reference: ingestion-persons-events §1.10).
 */
import { randomUUID } from "node:crypto";
import { v1Flags, v2FlagsJson, type FlagValue } from "../services/feature-flags.ts";

const SUPPORTED_COMPRESSION = ["gzip", "gzip-js"];

/** What posthog-js reads from remote config (and from `/flags/?config=true`). */
export const remoteConfig = (token: string, hasFeatureFlags: boolean) => ({
  token,
  supportedCompression: SUPPORTED_COMPRESSION,
  /** posthog-js asks `/flags` only when this is true. */
  hasFeatureFlags,
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
export const remoteConfigScript = (token: string, hasFeatureFlags: boolean) =>
  `(function(){window._POSTHOG_REMOTE_CONFIG=window._POSTHOG_REMOTE_CONFIG||{};` +
  `window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(token)}]={config:${JSON.stringify(remoteConfig(token, hasFeatureFlags))},siteApps:[]};})();`;

/** What a flags answer is built from: the project's token (none: no project, no flags) and its evaluated flags. */
export interface FlagsOutcome {
  token: string | undefined;
  hasFeatureFlags: boolean;
  values: readonly FlagValue[];
}

/** `/flags/?v=2` answers the v2 shape; without `v` (or v=1) the v1 shape the SDKs also accept. */
/** The config part of a flags answer, as JSON text without its closing brace; built once per project and flag state. */
const configJsonCache = new Map<string, string>();
function configJsonOpen(token: string | undefined, hasFeatureFlags: boolean): string {
  const cacheKey = `${token ?? ""}\u0000${hasFeatureFlags}`;
  let text = configJsonCache.get(cacheKey);
  if (text === undefined) {
    const base = token ? remoteConfig(token, hasFeatureFlags) : { supportedCompression: SUPPORTED_COMPRESSION, sessionRecording: false };
    text = JSON.stringify(base).slice(0, -1);
    // Tokens come from requests: keep the cache bounded.
    if (configJsonCache.size > 1000) configJsonCache.clear();
    configJsonCache.set(cacheKey, text);
  }
  return text;
}

/** `/flags` as JSON text: `v=2` (and above) answers each flag with its reason and metadata, v1 the values and payloads. */
export function flagsAnswerJson(version: number, outcome: FlagsOutcome): string {
  const open = configJsonOpen(outcome.token, outcome.hasFeatureFlags);
  if (version >= 2) return `${open},"flags":${v2FlagsJson(outcome.values)},"errorsWhileComputingFlags":false,"requestId":"${randomUUID()}"}`;
  const { featureFlags, featureFlagPayloads } = v1Flags(outcome.values);
  return `${open},"featureFlags":${JSON.stringify(featureFlags)},"featureFlagPayloads":${JSON.stringify(featureFlagPayloads)},"errorsWhileComputingFlags":false}`;
}

/** `/decide/` (older SDKs): `v=4` answers the v2 flags shape, earlier versions the v1 shape; both with the old config keys. */
export const decideAnswerJson = (version: number, outcome: FlagsOutcome): string =>
  `${flagsAnswerJson(version >= 4 ? 2 : 1, outcome).slice(0, -1)},"config":{"enable_collect_everything":true},"toolbarParams":{},"isAuthenticated":false,"siteApps":[]}`;
