import { escapeHtml } from "./landing.ts";

/** One of the three documents as /docs shows it: where its page and its prepared document are, and its security scheme. */
export interface DocsDocument {
  name: "api" | "capture" | "control";
  title: string;
  /** The page showing it (Swagger UI). */
  page: string;
  /** The document as Try it out reads it (see `forTryItOut`). */
  json: string;
  /** The scheme the running server's key is applied to, for a viewer on this machine; none for the control API. */
  keyScheme?: string;
}

export const DOCS_DOCUMENTS: readonly DocsDocument[] = [
  { name: "api", title: "Product API", page: "/docs", json: "/docs/openapi.json", keyScheme: "PersonalAPIKey" },
  { name: "capture", title: "Capture and flags (client libraries)", page: "/docs/capture", json: "/docs/capture/openapi.json", keyScheme: "Bearer" },
  { name: "control", title: "Control API", page: "/docs/control", json: "/docs/control/openapi.json" },
];

/** A value inlined into a <script>: JSON that cannot close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/** Links to the three documents' pages, the shown one marked. */
const nav = (shown: DocsDocument) =>
  DOCS_DOCUMENTS.map((d) => (d === shown ? `<strong aria-current="page">${escapeHtml(d.title)}</strong>` : `<a href="${d.page}">${escapeHtml(d.title)}</a>`)).join(" · ");

/**
 * The Swagger UI page of one document. It loads the prepared document and puts this origin first in `servers`,
 * so "Try it out" calls the server that serves the page, with the key entered under "Authorize" (or applied
 * already, for a viewer on this machine).
 */
export const docsPage = (shown: DocsDocument, viewerKey: string | undefined) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>analytics-mock: ${escapeHtml(shown.title)} reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
  <style>#documents{font:14px/1.5 system-ui,sans-serif;max-width:1460px;margin:0 auto;padding:10px 20px}</style>
</head>
<body>
  <nav id="documents">Documents: ${nav(shown)} · <a href="/docs/differences">Differences from the real service</a></nav>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    // swagger-ui lists a long document virtually (only what is near the viewport is in the page) and scrolls to a
    // deep link (#/tag/operationId) before the list has settled, so the operation can end up out of the page. Once
    // loaded, the page scrolls down until the operation is drawn, then keeps it at the top until it stays there.
    function showDeepLinked() {
      const [tag, operationId] = decodeURIComponent(location.hash.slice(2)).split("/");
      if (!tag) return;
      const id = operationId ? "operations-" + tag + "-" + operationId : "operations-tag-" + tag;
      let frames = 0;
      let lastTop = NaN;
      const step = () => {
        if (++frames > 240) return;
        const target = document.getElementById(id);
        if (!target) {
          if (window.scrollY + window.innerHeight >= document.documentElement.scrollHeight) window.scrollTo(0, 0);
          else window.scrollBy(0, window.innerHeight / 2);
          return requestAnimationFrame(step);
        }
        const top = target.getBoundingClientRect().top;
        if (Math.abs(top) < 2 && Math.abs(top - lastTop) < 2) return;
        lastTop = top;
        target.scrollIntoView({ block: "start" });
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }
    fetch(${scriptJson(shown.json)})
      .then((res) => res.json())
      .then((spec) => {
        spec.servers = [{ url: window.location.origin, description: "This server" }, ...(spec.servers || [])];
        window.ui = SwaggerUIBundle({
          spec,
          dom_id: "#swagger-ui",
          deepLinking: true,
          persistAuthorization: true,
          tryItOutEnabled: false,
          validatorUrl: null,
          presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
          plugins: [SwaggerUIBundle.plugins.DownloadUrl],
          layout: "BaseLayout",
          onComplete: showDeepLinked,
        });
        // The running server's key, for a viewer on this machine only: Try it out works without a trip to the terminal.
        const key = ${scriptJson(shown.keyScheme && viewerKey ? viewerKey : null)};
        if (key) window.ui.preauthorizeApiKey(${scriptJson(shown.keyScheme ?? "")}, key);
      });
  </script>
</body>
</html>
`;
