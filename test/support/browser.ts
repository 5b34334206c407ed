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

