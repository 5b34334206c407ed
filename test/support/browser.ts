import { chromium as playwright, type Browser } from "playwright-core";
import { chromium } from "./external-tools.ts";

/**
 * Headless Chromium for the test files, inside `chromium.describe(...)` (which says what happens when there
 * is none). The flags keep it off the network (this machine's closed network refuses its background
 * connections) and let it run as root; Playwright gives each launch a fresh profile.
 */
export function launchChromium(): Promise<Browser> {
  return playwright.launch({
    executablePath: chromium.path,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
