import type { Request, Response } from "express";
import type { ProjectRecord } from "../store/schema.ts";

/** One surface of the server, as `GET /` lists it. */
export interface Surface {
  path: string;
  title: string;
  description: string;
  /** The OpenAPI document describing it, where there is one. */
  document?: string;
  /** Whether a browser can open it as it is (the API and the control API need a key or a method first). */
  browsable: boolean;
}

/** What this server serves, in the order a newcomer needs it. A new surface gets a row here. */
export const SURFACES: readonly Surface[] = [
  { path: "/_mock/ui/", title: "Inspector", description: "Live captured events with the tracking plan's verdicts, the request log, forced flags, scenarios and the clock, and insights drawn as charts (this machine, or origins given with --control-origins).", browsable: true },
  { path: "/docs", title: "API reference", description: "Interactive reference (Swagger UI) of the API; `/docs/capture` and `/docs/control` show the capture and control documents. \"Try it out\" calls this server with the key entered under \"Authorize\".", browsable: true },
  { path: "/docs/differences", title: "Differences from the real service", description: "Where this server answers differently from the real service, each difference once.", browsable: true },
  { path: "/api/projects/", title: "API", description: "The analytics API: send `Authorization: Bearer <personal API key>`.", document: "/openapi.json", browsable: false },
  { path: "/openapi.json", title: "OpenAPI document (JSON)", description: "The API's contract, bundled into one file.", browsable: true },
  { path: "/openapi.yaml", title: "OpenAPI document (YAML)", description: "The same document as YAML.", browsable: true },
  { path: "/batch/", title: "Capture (client libraries)", description: "Where posthog-js and posthog-node send events and identify calls (`/e/`, `/batch/`, `/capture/`, `/engage/`, `/flags/`, `/decide/`): set the library's host to this server and use a project API token (`phc_…`) printed at start.", document: "/capture/openapi.yaml", browsable: false },
  { path: "/_mock/requests/", title: "Control API", description: "Reset, load fixtures, freeze or advance the clock, read the request log (this path; loopback clients, or --admin-token). Every control path is in its document.", document: "/_mock/openapi.yaml", browsable: false },
];

const KEY_HELP =
  "Every API call needs the personal API key that `npm start` printed (\"API key:\"). With the generated dataset it is a documented demo key, the same at every start with the same seed; with --fixtures it is a key of that file. Below it, the start-up output lists the project ids (the `:project_id` in every path) and each project's API token.";

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
export const codeSpans = (text: string) => escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");

/** A project as the page lists it: what posthog-js and posthog-node need (`posthog.init(token, { api_host })`). */
export type ProjectToken = Pick<ProjectRecord, "id" | "name" | "api_token">;

const TOKENS_HELP =
  "Client libraries (posthog-js, posthog-node) send a project's API token, not the personal key: `posthog.init(\"<token>\", { api_host: \"{{origin}}\" })`. Tokens are not secrets (the real service puts them in web pages).";

/** The projects' tokens, one row each (printed at start too). */
const tokenRows = (projects: readonly ProjectToken[]) =>
  projects.map((p) => `    <li><code>${escapeHtml(p.api_token)}</code> · project ${escapeHtml(p.id)} “${escapeHtml(p.name)}”</li>`).join("\n");

/** The key itself, for a viewer on the server's machine (see `isLoopbackViewer`). */
const keyLine = (key: string) => `  <p>This server's key: <code id="api-key">${escapeHtml(key)}</code></p>\n`;

function page(): string {
  const rows = SURFACES.map((s) => {
    const where = s.browsable ? `<a href="${s.path}">${s.path}</a>` : `<code>${s.path}</code>`;
    const document = s.document ? ` (document: <a href="${s.document}">${s.document}</a>)` : "";
    return `    <li>${where} · <strong>${escapeHtml(s.title)}</strong>${document}: ${codeSpans(s.description)}</li>`;
  }).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>analytics-mock</title>
  <style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}code{background:#f2f2f2;padding:0 .2em}li{margin:.4em 0}</style>
</head>
<body>
  <h1>analytics-mock</h1>
  <p>A mock-and-reference server for a PostHog-style product analytics API: insights, persons and events under <code>/api/projects/:project_id/</code>.</p>
  <h2>Your API key</h2>
  <p>${codeSpans(KEY_HELP)}</p>
{{key}}  <pre>curl -H "Authorization: Bearer &lt;printed key&gt;" {{origin}}/api/projects/</pre>
  <h2>Project API tokens</h2>
  <p>${codeSpans(TOKENS_HELP)}</p>
  <ul id="project-tokens">
{{tokens}}
  </ul>
  <h2>What is here</h2>
  <ul>
${rows}
  </ul>
</body>
</html>
`;
}

const PAGE = page();

/**
 * `GET /`: not an API operation, a signpost. A browser gets a small page explaining the printed key and
 * linking the surfaces; a client asking for JSON (or anything, as curl does) gets the same list as JSON.
 * The key itself is shown only to a viewer on the server's machine (`viewerKey`), and never in the JSON.
 */
export function landing(req: Request, res: Response, viewerKey?: string, projects: readonly ProjectToken[] = []): void {
  const origin = `${req.protocol}://${req.get("host") ?? "localhost"}`;
  if (req.accepts(["json", "html"]) === "html") {
    const html = PAGE.replace("{{key}}", viewerKey ? keyLine(viewerKey) : "").replace("{{tokens}}", tokenRows(projects));
    res.type("html").send(html.replaceAll("{{origin}}", escapeHtml(origin)));
    return;
  }
  res.json({
    name: "analytics-mock",
    api_key: KEY_HELP.replaceAll("`", ""),
    projects: projects.map(({ id, name, api_token }) => ({ id, name, api_token })),
    surfaces: SURFACES.map(({ browsable: _browsable, ...s }) => ({ ...s, url: `${origin}${s.path}`, description: s.description.replaceAll("`", "") })),
  });
}
