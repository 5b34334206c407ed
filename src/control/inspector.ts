/**
 * The inspector page (`/_mock/ui/`): one HTML page and its files, served through the control API's pipeline
 * (so to the same callers), reading and changing state only through the control and product APIs.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Context } from "openapi-backend";
import { fail } from "../core/errors.ts";
import { escapeHtml } from "../http/landing.ts";
import { TextBody, type HandlerResult } from "../pipeline/result.ts";
import { projectFile } from "../util/project-files.ts";

/**
 * What the page needs besides the APIs: the projects and their tokens (not secrets: the real service puts them in
 * web pages). Never the personal API key: no control answer carries one in full; the page reads it where `/`
 * shows it to a viewer on this machine, or asks for it.
 */
export interface InspectorSession {
  projects: { id: string; name: string; api_token: string }[];
}

const UI_DIR = projectFile("src/inspector-ui");
/** uPlot, a runtime dependency: its minified build and style sheet, served under names of our own. */
const UPLOT_DIR = path.join(path.dirname(createRequire(import.meta.url).resolve("uplot/package.json")), "dist");
const VENDORED: Readonly<Record<string, string>> = { "uplot.js": path.join(UPLOT_DIR, "uPlot.iife.min.js"), "uplot.css": path.join(UPLOT_DIR, "uPlot.min.css") };
const TYPES: Readonly<Record<string, string>> = { js: "application/javascript", css: "text/css" };

/** A name the page ships: ours in src/inspector-ui/ (no path segments: the pattern allows none) or a vendored one. */
const fileOf = (asset: string): string => VENDORED[asset] ?? path.join(UI_DIR, asset);

const cache = new Map<string, TextBody>();

/** One file of the page, read once per process; an unknown name is a 404. */
function assetAnswer(asset: string): HandlerResult {
  let body = cache.get(asset);
  if (!body) {
    let text: string;
    try {
      text = readFileSync(fileOf(asset), "utf8");
    } catch {
      throw fail.notFound(`The inspector has no file ${JSON.stringify(asset)}.`);
    }
    body = new TextBody(text, TYPES[asset.slice(asset.lastIndexOf(".") + 1)] ?? "text/plain");
    cache.set(asset, body);
  }
  return { status: 200, body, headers: { "cache-control": "no-cache" } };
}

/** The page's modules, fetched at once (app.js imports them two levels deep: without this, two round trips more). */
const MODULES = ["api.js", "dom.js", "virtual-list.js", "events.js", "requests.js", "flags.js", "state.js", "charts.js", "insights.js"];

/** A value inlined into a <script>: JSON that cannot close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/** The page: a shell the modules fill; the session is inlined so the first paint needs no extra request. */
export const inspectorPage = (session: InspectorSession) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml("analytics-mock inspector")}</title>
  <link rel="stylesheet" href="/_mock/ui/uplot.css">
  <link rel="stylesheet" href="/_mock/ui/inspector.css">
  <script src="/_mock/ui/uplot.js" defer></script>
  ${MODULES.map((m) => `<link rel="modulepreload" href="/_mock/ui/${m}">`).join("\n  ")}
  <script type="module" src="/_mock/ui/app.js"></script>
</head>
<body>
  <header>
    <a class="home" href="/">analytics-mock</a>
    <nav id="tabs"></nav>
    <label id="key-field" class="field" hidden><span>Personal API key</span><input name="api_key" type="password" autocomplete="off" placeholder="phx_…"></label>
  </header>
  <main id="view"></main>
  <script id="session" type="application/json">${scriptJson(session)}</script>
</body>
</html>
`;

/** The control API's two operations of the page, given where the session comes from. */
export const inspectorHandlers = (session: () => InspectorSession) => ({
  control_ui_retrieve: (): HandlerResult => ({ status: 200, body: new TextBody(inspectorPage(session()), "text/html"), headers: { "cache-control": "no-store" } }),
  control_ui_asset_retrieve: (c: Context): HandlerResult => assetAnswer(String(c.request.params.asset)),
});
