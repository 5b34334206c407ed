/**
 * `/static/<file>` and `/static/<version>/<file>`: the extension scripts posthog-js loads lazily from its
 * `api_host` (surveys, exception autocapture, web vitals, dead clicks, the recorder, the toolbar…), served from
 * the posthog-js package installed with the server. The real service serves them from its assets host, which a
 * custom `api_host` forwards these paths to; there every version has its own files, here there is one version.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fail } from "../core/errors.ts";
import { TextBody, type HandlerResult } from "../pipeline/result.ts";
import type { CaptureRequest, CaptureRoute } from "./request.ts";

/**
 * The scripts of posthog-js's dist/ that its code asks the assets host for: the lazy entries named in its
 * `loadExternalDependency` calls (web vitals in four builds, the recorder under its current and older names),
 * and the array bundles the snippet loader fetches. Anything else under /static/ is a 404, `toolbar.js` too:
 * the toolbar is part of PostHog's web app, not of the posthog-js package, and posthog-js asks for it only when
 * the toolbar is launched (openapi/differences.yaml).
 */
export const STATIC_SCRIPTS = [
  "array.js",
  "array.full.js",
  "array.no-external.js",
  "array.full.no-external.js",
  "surveys.js",
  "exception-autocapture.js",
  "web-vitals.js",
  "web-vitals-with-attribution.js",
  "web-vitals-soft-navs.js",
  "web-vitals-with-attribution-soft-navs.js",
  "dead-clicks-autocapture.js",
  "lazy-recorder.js",
  "posthog-recorder.js",
  "recorder.js",
  "recorder-v2.js",
  "tracing-headers.js",
  "product-tours.js",
  "conversations.js",
  "logs.js",
  "element-inference.js",
  "intercom-integration.js",
  "crisp-chat-integration.js",
] as const;

export type StaticScript = (typeof STATIC_SCRIPTS)[number];

/** `/static/surveys.js`, `/static/1.449.2/surveys.js` (a trailing slash is not a file). */
const STATIC_PATH = /^\/static\/(?:([^/]+)\/)?([^/]+)$/;

/** A versioned file is the same bytes forever (the real assets host caches it for a year); the unversioned name moves with releases. */
export const CACHE_VERSIONED = "public, max-age=31536000, immutable";
export const CACHE_UNVERSIONED = "public, max-age=300";

/** The installed posthog-js: its version and the folder its scripts are read from. */
export interface PosthogJsPackage {
  version: string;
  dist: string;
}

/** Found through Node's resolution, so it works from a checkout and from an install where the package is hoisted. */
export function installedPosthogJs(): PosthogJsPackage {
  const manifest = createRequire(import.meta.url).resolve("posthog-js/package.json");
  const { version } = JSON.parse(readFileSync(manifest, "utf8")) as { version: string };
  return { version, dist: path.join(path.dirname(manifest), "dist") };
}

/** The path's version (undefined without one) and file, or null for a path that is not under /static/. */
export function staticPathParts(urlPath: string): { version: string | undefined; file: string } | null {
  const match = STATIC_PATH.exec(urlPath);
  return match ? { version: match[1], file: match[2]! } : null;
}

const isStaticScript = (file: string): file is StaticScript => (STATIC_SCRIPTS as readonly string[]).includes(file);

/**
 * The headers of a served script: any origin may load it (posthog-js sets `crossorigin="anonymous"`), and it is
 * cached for long only under the version it really is.
 */
export function staticScriptHeaders(asked: string | undefined, installed: string): Record<string, string> {
  return {
    "Access-Control-Allow-Origin": "*",
    "Cache-Control": asked === installed ? CACHE_VERSIONED : CACHE_UNVERSIONED,
    "Cross-Origin-Resource-Policy": "cross-origin",
    ETag: `"posthog-js-${installed}"`,
  };
}

/** What the request log says when the page asked for another version than the one served. */
export const versionNote = (asked: string, installed: string) =>
  `posthog-js ${asked} was asked for; the installed ${installed} was served (the server has no other version).`;

function readIfPresent(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/** The routes of `/static/{file}` and `/static/{version}/{file}`; each file is read once, on first request. */
export function staticScriptRoutes(pkg: PosthogJsPackage = installedPosthogJs()): { unversioned: CaptureRoute; versioned: CaptureRoute } {
  const texts = new Map<StaticScript, string | null>();
  /** null when this posthog-js has no such file (an entry of older or newer versions). */
  const textOf = (file: StaticScript): string | null => {
    let text = texts.get(file);
    if (text === undefined) texts.set(file, (text = readIfPresent(path.join(pkg.dist, file))));
    return text;
  };
  const handle = (req: CaptureRequest): HandlerResult => {
    const { version, file } = req.params as { version?: string; file: string };
    const text = isStaticScript(file) ? textOf(file) : null;
    if (text === null) throw fail.notFound(`No script ${file} in posthog-js ${pkg.version}.`);
    const headers = staticScriptHeaders(version, pkg.version);
    const notes = version !== undefined && version !== pkg.version ? [versionNote(version, pkg.version)] : undefined;
    if (req.header("if-none-match") === headers.ETag) return { status: 304, headers, notes };
    return { status: 200, body: new TextBody(text, "application/javascript"), headers, notes };
  };
  return { unversioned: { operationId: "static_script_retrieve", handle }, versioned: { operationId: "static_script_versioned_retrieve", handle } };
}
