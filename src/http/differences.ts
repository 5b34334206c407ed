import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { projectFile } from "../util/project-files.ts";
import { codeSpans, escapeHtml } from "./landing.ts";

/** One difference from the real service (or its published document), and the places of the API it concerns. */
interface Difference {
  where: string;
  difference: string;
}

interface Section {
  section: string;
  items: Difference[];
}

/** The list is kept as data beside the document it annotates, so a reader of openapi/ finds it too. */
const DIFFERENCES_PATH = projectFile("openapi/differences.yaml");

export function differencesPage(sections: readonly Section[]): string {
  const body = sections
    .map(({ section, items }) => {
      const rows = items.map((d) => `    <li><strong>${codeSpans(d.where)}</strong>: ${codeSpans(d.difference)}</li>`).join("\n");
      return `  <h2>${escapeHtml(section)}</h2>\n  <ul>\n${rows}\n  </ul>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>analytics-mock: differences from the real service</title>
  <style>body{font:16px/1.5 system-ui,sans-serif;max-width:56rem;margin:2rem auto;padding:0 1rem}code{background:#f2f2f2;padding:0 .2em}li{margin:.5em 0}</style>
</head>
<body>
  <h1>Differences from the real service</h1>
  <p>Where this server answers differently from the real service, or from the real service's published OpenAPI document ("the spec"), each said once. The <a href="/docs">API reference</a> describes what it does.</p>
${body}
</body>
</html>
`;
}

let page: string | undefined;

/** The page, built at its first request. */
export function differencesHtml(): string {
  page ??= differencesPage(parse(readFileSync(DIFFERENCES_PATH, "utf8")) as Section[]);
  return page;
}
