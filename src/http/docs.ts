import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { stringify } from "yaml";
import { CAPTURE_OPENAPI_PATH, CONTROL_OPENAPI_PATH, OPENAPI_PATH } from "../pipeline/documents.ts";
import { differencesHtml } from "./differences.ts";
import { DOCS_DOCUMENTS, docsPage, type DocsDocument } from "./docs-page.ts";
import { landing } from "./landing.ts";
import { LOOPBACK_HOST } from "./control-origins.ts";
import type { Store } from "../store/store.ts";

/** swagger-ui-dist ships the prebuilt UI; it is served from node_modules so the docs work offline. */
const SWAGGER_UI_DIR = path.dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const UI_FILES = ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-16x16.png", "favicon-32x32.png"];

interface Bundled {
  json: string;
  yaml: string;
  /** The document as the docs page shows it (see `forTryItOut`). */
  docs: string;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Parameters as "Try it out" should prefill them, so that a first Execute works against the default
 * dataset: a path parameter's named examples become its first value (no "Examples: csv" dropdown), a query
 * parameter's named examples are dropped (they are the basic.json requests of the contract tests, which
 * would prefill 2024 dates and `format=csv`; an empty field takes the documented default).
 */
function tryItOutParameter(param: Json): Json {
  if (!isObject(param.examples)) return param;
  const { examples, ...rest } = param;
  if (param.in !== "path") return rest;
  const first = Object.values(examples).find(isObject);
  return first && "value" in first ? { ...rest, example: first.value } : rest;
}

/** Fewer than this many rarely-used (`x-advanced`) query parameters are left as they are. */
const MIN_GROUPED = 3;

/**
 * An operation's rarely-used query parameters (marked `x-advanced: true`) as one "advanced" input of the docs
 * view: a form-exploded object, which Swagger UI shows as one JSON box and sends as separate query parameters
 * (`{"smoothing_intervals": 3}` → `smoothing_intervals=3`). The contract (`/openapi.json`) lists them one by one.
 */
export function groupAdvanced(params: unknown[], resolve: (p: unknown) => unknown): unknown[] {
  const advanced = params.filter((p) => {
    const param = resolve(p);
    return isObject(param) && param.in === "query" && param["x-advanced"] === true;
  });
  if (advanced.length < MIN_GROUPED) return params;
  const properties = Object.fromEntries(
    advanced.map((p) => {
      const param = resolve(p) as Json;
      return [String(param.name), { ...(isObject(param.schema) ? param.schema : {}), description: param.description }];
    }),
  );
  const names = Object.keys(properties).map((n) => `\`${n}\``).join(", ");
  const grouped = {
    name: "advanced",
    in: "query",
    required: false,
    description: `Rarely-used fields, as one JSON object whose keys are sent as query parameters: ${names}.`,
    style: "form",
    explode: true,
    schema: { type: "object", properties, additionalProperties: false },
  };
  return [...params.filter((p) => !advanced.includes(p)), grouped];
}

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** The bundled document with every parameter (of path items, operations and components) prepared for Try it out. */
export function forTryItOut(doc: Json): Json {
  const paths = isObject(doc.paths) ? doc.paths : {};
  const componentParams = isObject(doc.components) && isObject(doc.components.parameters) ? doc.components.parameters : {};
  const resolve = (p: unknown) => (isObject(p) && typeof p.$ref === "string" ? componentParams[p.$ref.replace("#/components/parameters/", "")] : p);
  const fix = (params: unknown) => (Array.isArray(params) ? params.map((p) => (isObject(p) ? tryItOutParameter(p) : p)) : params);
  const fixedPaths = Object.fromEntries(
    Object.entries(paths).map(([path, item]) => {
      if (!isObject(item)) return [path, item];
      // Path-level parameters are repeated on each operation: Swagger UI leaves a path-level $ref unresolved on an
      // operation with many parameters of its own (a nameless "any" row, and `{project_id}` sent as is).
      const { parameters: shared, ...fixed } = item;
      const sharedParams = Array.isArray(shared) ? shared : [];
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!isObject(op)) continue;
        const own = Array.isArray(op.parameters) ? op.parameters : [];
        const key = (p: unknown) => (isObject(p) ? String(p.$ref ?? `${String(p.in)}:${String(p.name)}`) : "");
        const inherited = sharedParams.filter((p) => !own.some((o) => key(o) === key(p)));
        if (own.length + inherited.length > 0) fixed[method] = { ...op, parameters: groupAdvanced(fix([...inherited, ...own]) as unknown[], resolve) };
      }
      return [path, fixed];
    }),
  );
  const components = isObject(doc.components) ? doc.components : {};
  const parameters = isObject(components.parameters) ? components.parameters : undefined;
  if (!parameters) return { ...doc, paths: fixedPaths };
  const fixedParameters = Object.fromEntries(Object.entries(parameters).map(([name, p]) => [name, isObject(p) ? tryItOutParameter(p) : p]));
  return { ...doc, paths: fixedPaths, components: { ...components, parameters: fixedParameters } };
}

/** The split document as one file: external `$ref`s become internal ones (`#/components/...`). */
async function bundleDocument(file: string): Promise<Bundled> {
  const doc = await $RefParser.bundle(file);
  return {
    json: JSON.stringify(doc, null, 2),
    yaml: stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false }),
    docs: JSON.stringify(forTryItOut(doc as Json)),
  };
}

/** Socket addresses of this machine (as the control API's guard lists them). */
const LOOPBACK_ADDRESSES = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

/**
 * Whether the viewer sits at this machine: a loopback socket, and a loopback Host (a foreign page that rebinds
 * its own name to 127.0.0.1 still sends its own name), so showing the running server's key tells nobody new.
 */
export function isLoopbackViewer(req: Request): boolean {
  return LOOPBACK_ADDRESSES.has(req.socket.remoteAddress ?? "") && LOOPBACK_HOST.test(req.get("host") ?? "");
}

/** The key `npm start` prints: the first personal API key of the first user. */
export function runningServerKey(store: Store): string | undefined {
  const user = store.users.get(1) ?? store.snapshot().meta.users[0];
  return user?.personal_api_keys[0];
}

/**
 * `/` (a signpost to the rest, `landing.ts`), `/capture/openapi.yaml` (the capture endpoints' document), `/docs`,
 * `/docs/capture` and `/docs/control` (interactive references of the three documents, each reading its prepared
 * document under `/docs/…/openapi.json`), `/openapi.json` and `/openapi.yaml` (the bundled product document).
 * Mounted before the API, so these paths need no API key. Each document is bundled once, at its first request.
 */
export function docsRouter(store: Store | undefined, file: string = OPENAPI_PATH): Router {
  const viewerKey = (req: Request) => (store && isLoopbackViewer(req) ? runningServerKey(store) : undefined);
  const files: Record<DocsDocument["name"], string> = { api: file, capture: CAPTURE_OPENAPI_PATH, control: CONTROL_OPENAPI_PATH };
  const bundled = new Map<string, Promise<Bundled>>();
  let captureYaml: string | undefined;
  const load = (name: DocsDocument["name"] = "api") => {
    let doc = bundled.get(name);
    if (!doc) {
      doc = bundleDocument(files[name]).catch((e: unknown) => {
        bundled.delete(name);
        throw e;
      });
      bundled.set(name, doc);
    }
    return doc;
  };
  const serve = (pick: (b: Bundled) => string, type: string, name?: DocsDocument["name"]) => async (_req: Request, res: Response, next: NextFunction) => {
    try {
      const body = pick(await load(name));
      res.type(type).send(body);
    } catch (e) {
      next(e);
    }
  };

  const router = express.Router();
  router.get("/", (req, res) => landing(req, res, viewerKey(req), store?.projects.all() ?? []));
  router.get("/openapi.json", serve((b) => b.json, "application/json"));
  router.get("/openapi.yaml", serve((b) => b.yaml, "application/yaml"));
  router.get("/capture/openapi.yaml", (_req, res) => {
    captureYaml ??= readFileSync(CAPTURE_OPENAPI_PATH, "utf8");
    res.type("application/yaml").send(captureYaml);
  });
  router.get("/docs/differences", (_req, res) => {
    res.type("html").send(differencesHtml());
  });
  for (const doc of DOCS_DOCUMENTS) {
    router.get(doc.json, serve((b) => b.docs, "application/json", doc.name));
    router.get(doc.page, (req, res) => {
      res.type("html").send(docsPage(doc, viewerKey(req)));
    });
  }
  for (const name of UI_FILES) {
    router.get(`/docs/assets/${name}`, (_req, res, next) => {
      res.sendFile(name, { root: SWAGGER_UI_DIR, maxAge: "1h" }, (err) => err && next(err));
    });
  }
  return router;
}
