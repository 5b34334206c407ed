import { createRequire } from "node:module";
import path from "node:path";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { stringify } from "yaml";
import { OPENAPI_PATH } from "./api.ts";
import { landing } from "./landing.ts";

/** swagger-ui-dist ships the prebuilt UI; it is served from node_modules so the docs work offline. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const UI_FILES = ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-16x16.png", "favicon-32x32.png"];

interface Bundled {
  json: string;
  yaml: string;
}

/** The split document as one file: external `$ref`s become internal ones (`#/components/...`). */
async function bundleDocument(file: string): Promise<Bundled> {
  const doc = await $RefParser.bundle(file);
  return { json: JSON.stringify(doc, null, 2), yaml: stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false }) };
}

/**
 * The Swagger UI page. It loads the bundled document and puts this origin first in `servers`, so "Try it
 * out" calls the server that serves the page, with the key entered under "Authorize".
 */
const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>analytics-mock API reference</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    fetch("/openapi.json")
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
        });
      });
  </script>
</body>
</html>
`;

/**
 * `/` (a signpost to the rest, `landing.ts`), `/docs` (interactive reference), `/openapi.json` and
 * `/openapi.yaml` (the bundled document). Mounted before the API, so these paths need no API key. The
 * document is bundled once, at the first request.
 */
export function docsRouter(file: string = OPENAPI_PATH): Router {
  let bundled: Promise<Bundled> | undefined;
  const load = () => {
    bundled ??= bundleDocument(file).catch((e: unknown) => {
      bundled = undefined;
      throw e;
    });
    return bundled;
  };
  const serve = (pick: (b: Bundled) => string, type: string) => async (_req: Request, res: Response, next: NextFunction) => {
    try {
      const body = pick(await load());
      res.type(type).send(body);
    } catch (e) {
      next(e);
    }
  };

  const router = express.Router();
  router.get("/", landing);
  router.get("/openapi.json", serve((b) => b.json, "application/json"));
  router.get("/openapi.yaml", serve((b) => b.yaml, "application/yaml"));
  router.get("/docs", (_req, res) => {
    res.type("html").send(PAGE);
  });
  for (const name of UI_FILES) {
    router.get(`/docs/assets/${name}`, (_req, res, next) => {
      res.sendFile(name, { root: SWAGGER_UI_DIR, maxAge: "1h" }, (err) => err && next(err));
    });
  }
  return router;
}
