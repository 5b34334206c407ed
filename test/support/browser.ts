import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { chromium as playwright, type Browser, type Locator, type Page } from "playwright-core";
import { chromium } from "./external-tools.ts";

/**
 * Headless Chromium for the test files, inside `chromium.describe(...)` (which says what happens when there
 * is none). The flags keep it off the network (this machine's closed network refuses its background
 * connections) and let it run as root; Playwright gives each launch a fresh profile. Outside vitest (bench/),
 * pass the executable found by `findChromium`.
 */
export function launchChromium(executablePath = chromium.path): Promise<Browser> {
  return playwright.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}

const bundleText = (file: string) => readFileSync(createRequire(import.meta.url).resolve(`posthog-js/dist/${file}`), "utf8");
const POSTHOG_BUNDLE = bundleText("array.full.js");

/** What a page loads posthog-js with: its token, the server as `api_host`, and the test's own options. */
export interface PosthogPage {
  title: string;
  token: string;
  apiHost: string;
  /** More init options, as JavaScript source (`bootstrap: { distinctID: "u-1" }`). */
  options?: readonly string[];
  /** Runs after init, in the same script. */
  script?: string;
  /** More of the head (styles). */
  head?: string;
  body: string;
}

/** Init options that keep a page to what its test reads: no autocapture, no recording, each event sent at once. */
export const QUIET_POSTHOG = ["autocapture: false", "disable_session_recording: true", "request_batching: false"] as const;

/**
 * The HTML of an app's page that loads the real posthog-js from `/posthog.js` (servePosthogPage serves it) and
 * initialises it against the server. The user agent filter is off: headless Chromium says so in its user agent,
 * and posthog-js would drop every event of a bot.
 */
export function posthogPageHtml(page: PosthogPage): string {
  const options = [`api_host: ${JSON.stringify(page.apiHost)}`, "opt_out_useragent_filter: true", ...(page.options ?? [])];
  return `<!doctype html><html><head><title>${page.title}</title>${page.head ?? ""}
<script src="/posthog.js"></script>
<script>
  posthog.init(${JSON.stringify(page.token)}, { ${options.join(", ")} });
${page.script ?? ""}
</script></head><body>${page.body}</body></html>`;
}

/**
 * An app's page on another origin (another port): serves `html` at every path and the real posthog-js bundle at
 * `/posthog.js`, so that every call the page makes to the server is cross-origin, preflights included.
 */
export async function servePosthogPage(html: string, bundle = "array.full.js"): Promise<{ base: string; close(): Promise<void> }> {
  // The full bundle by default; `array.js` is the default npm bundle, which loads its extensions from api_host.
  const script = bundle === "array.full.js" ? POSTHOG_BUNDLE : bundleText(bundle);
  const site = http.createServer((req, res) => {
    if (req.url === "/posthog.js") res.writeHead(200, { "content-type": "application/javascript" }).end(script);
    else if (req.url === "/favicon.ico") res.writeHead(204).end();
    else res.writeHead(200, { "content-type": "text/html" }).end(html);
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  return {
    base: `http://localhost:${(site.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => site.close(() => resolve())),
  };
}

/**
 * One operation of a `/docs` page, opened. swagger-ui renders a document of 150 tags and operations or more as a
 * virtual list (only what is near the viewport is in the page), so an operation is reached by its deep link,
 * which scrolls to it and opens it.
 */
export async function openDocsOperation(page: Page, base: string, tag: string, operationId: string): Promise<Locator> {
  // A load of its own: a change of the hash alone does not make swagger-ui scroll again.
  await page.goto("about:blank");
  await page.goto(`${base}/docs#/${tag}/${operationId}`);
  const operation = page.locator(`#operations-${tag}-${operationId}`);
  await operation.locator(".opblock-body").waitFor({ state: "visible" });
  return operation;
}

