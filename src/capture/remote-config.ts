/**
 * The `/flags`, `/decide` and remote-config answers: evaluated feature flags, and a config made from the
 * project's settings in force, without site apps (reference: ingestion-persons-events §1.10).
 */
import { randomUUID } from "node:crypto";
import { hasFeatureFlags, v1Flags, v2FlagsJson, type FlagValue } from "../services/feature-flags.ts";
import { clientSettingsOf, type ClientSettings } from "../store/project-settings.ts";
import type { ProjectRecord } from "../store/schema.ts";
import { clientFeatureConfig } from "./client-features.ts";
import { sessionRecordingConfig } from "./session-recording-config.ts";
import { surveysEnabled } from "../surveys/public.ts";
import type { CaptureDeps } from "./request.ts";

const SUPPORTED_COMPRESSION = ["gzip", "gzip-js"];

/**
 * Everything a project's remote config follows from. It is also the key of the cached config text below: a
 * value that changes the answer must be an input here (forced flags reach it through `hasFeatureFlags`, settings
 * writes through `settings`).
 */
export interface RemoteConfigInputs {
  token: string;
  /** An active flag, or one forced by a test. */
  hasFeatureFlags: boolean;
  /** The project's settings in force (clientSettingsOf: its own, the real defaults, the start-up override). */
  settings: ClientSettings;
  /** Surveys on: opted in (the opt-in follows the active surveys), or a survey forced by a test. */
  surveys: boolean;
}

/** A project's inputs, gathered in one place for remote config, its script and the config part of `/flags`. */
export function remoteConfigInputs(deps: Pick<CaptureDeps, "store" | "clock" | "forced" | "settingsOverride">, project: ProjectRecord): RemoteConfigInputs {
  const settings = clientSettingsOf(project, deps.settingsOverride);
  return {
    token: project.api_token,
    hasFeatureFlags: hasFeatureFlags(deps, project),
    settings,
    surveys: surveysEnabled(settings.surveys_opt_in, project.id, deps.forced),
  };
}

/** What posthog-js reads from remote config (and from `/flags/?config=true`). */
export const remoteConfig = ({ token, hasFeatureFlags, settings, surveys }: RemoteConfigInputs) => {
  const features = clientFeatureConfig(settings);
  return {
    token,
    supportedCompression: SUPPORTED_COMPRESSION,
    /** posthog-js asks `/flags` only when this is true. */
    hasFeatureFlags,
    captureDeadClicks: features.captureDeadClicks,
    capturePerformance: features.capturePerformance,
    autocapture_opt_out: false,
    autocaptureExceptions: features.autocaptureExceptions,
    analytics: { endpoint: "/e/" },
    elementsChainAsString: true,
    errorTracking: features.errorTracking,
    sessionRecording: sessionRecordingConfig(settings),
    heatmaps: features.heatmaps,
    surveys,
    defaultIdentifiedOnly: true,
    siteApps: [],
  };
};

/** `/array/{token}/config.js`: the script form posthog-js loads, which registers the same config. */
export const remoteConfigScript = (inputs: RemoteConfigInputs) =>
  `(function(){window._POSTHOG_REMOTE_CONFIG=window._POSTHOG_REMOTE_CONFIG||{};` +
  `window._POSTHOG_REMOTE_CONFIG[${JSON.stringify(inputs.token)}]={config:${JSON.stringify(remoteConfig(inputs))},siteApps:[]};})();`;

/** What a flags answer is built from: the project's config inputs (none: no project, no flags) and its evaluated flags. */
export interface FlagsOutcome {
  /** The project's remote-config inputs; undefined without a project. */
  config: RemoteConfigInputs | undefined;
  values: readonly FlagValue[];
}

/** The config part of a flags answer, as JSON text without its closing brace; built once per set of inputs. */
const configJsonCache = new Map<string, string>();
function configJsonOpen(inputs: RemoteConfigInputs | undefined): string {
  // Every input is in the key: a settings write or a forced flag is a new key, never a stale answer.
  const cacheKey = inputs ? JSON.stringify(inputs) : "";
  let text = configJsonCache.get(cacheKey);
  if (text === undefined) {
    const base = inputs ? remoteConfig(inputs) : { supportedCompression: SUPPORTED_COMPRESSION, sessionRecording: false };
    text = JSON.stringify(base).slice(0, -1);
    // Tokens come from requests: keep the cache bounded.
    if (configJsonCache.size > 1000) configJsonCache.clear();
    configJsonCache.set(cacheKey, text);
  }
  return text;
}

/** `/flags` as JSON text: `v=2` (and above) answers each flag with its reason and metadata, v1 the values and payloads. */
export function flagsAnswerJson(version: number, outcome: FlagsOutcome): string {
  const open = configJsonOpen(outcome.config);
  if (version >= 2) return `${open},"flags":${v2FlagsJson(outcome.values)},"errorsWhileComputingFlags":false,"requestId":"${randomUUID()}"}`;
  const { featureFlags, featureFlagPayloads } = v1Flags(outcome.values);
  return `${open},"featureFlags":${JSON.stringify(featureFlags)},"featureFlagPayloads":${JSON.stringify(featureFlagPayloads)},"errorsWhileComputingFlags":false}`;
}

/** `/decide/` (older SDKs): `v=4` answers the v2 flags shape, earlier versions the v1 shape; both with the old config keys. */
export const decideAnswerJson = (version: number, outcome: FlagsOutcome): string =>
  `${flagsAnswerJson(version >= 4 ? 2 : 1, outcome).slice(0, -1)},"config":{"enable_collect_everything":true},"toolbarParams":{},"isAuthenticated":false,"siteApps":[]}`;
