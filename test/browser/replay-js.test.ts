import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium, servePosthogPage, posthogPageHtml } from "../support/browser.ts";
import { callControl } from "../support/control-contract.ts";
import { chromium } from "../support/external-tools.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Session replay with the real posthog-js on a page of another origin, in its full bundle (the recorder inside)
 * and its default npm bundle (which loads `lazy-recorder.js` from the server's `/static/`): remote config opts
 * the project in (fixtures/scenarios/features.json), posthog-js records, its `/s/` batches are stored, the
 * control API's wait sees the recording, and the recordings API reads it back with its two clicks.
 */
const UI_TIMEOUT = 60_000;
const TOKEN = "phc_test_features_token_0001";
const P = "/api/environments/1";

const pageHtml = (apiHost: string) =>
  posthogPageHtml({ title: "replay", token: TOKEN, apiHost, options: ["autocapture: false"], body: '<h1>replay</h1><button id="buy">Buy</button><input id="note">' });

/** The page's global posthog (the test's tsconfig has no DOM types). */
declare const window: { posthog: { __loaded?: boolean; get_session_id(): string; sessionRecordingStarted(): boolean } };

let s: TestServer;

chromium.describe("posthog-js session replay", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(scenario("features"));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it.each(["array.full.js", "array.js"])("%s records a session whose snapshots arrive at /s/ and read back with the clicks made", { timeout: 180_000 }, async (bundle) => {
    const site = await servePosthogPage(pageHtml(s.base), bundle);
    try {
      await recordAndReadBack(browser, site.base);
    } finally {
      await site.close();
    }
  });
});

/** Loads the page, records two clicks and a few keys, and reads the recording back through the API. */
async function recordAndReadBack(browser: Browser, siteBase: string): Promise<void> {
  const page = await browser.newPage();
  page.setDefaultTimeout(UI_TIMEOUT);
  const refused: string[] = [];
  page.on("response", (r) => {
    // The recorder's own requests: /s/, and the lazy recorder script with the default bundle.
    const path = new URL(r.url()).pathname;
    if ((path.startsWith("/s/") || path.includes("recorder")) && r.status() >= 400) refused.push(`${r.status()}: ${r.url()}`);
  });
  await page.goto(`${siteBase}/shop`);
  await page.waitForFunction(() => window.posthog?.__loaded === true && window.posthog.sessionRecordingStarted());
  const sessionId = await page.evaluate(() => window.posthog.get_session_id());
  await page.click("#buy");
  await page.click("#buy");
  await page.type("#note", "ab");

  // The full snapshot and the clicks reach /s/ within posthog-js's flush interval (a few seconds).
  const waited = await callControl(s.base, "POST", "/recordings/wait/", { session_id: sessionId, snapshots: 2, timeout_ms: 30_000 });
  expect(waited.body.status).toBe("matched");
  await expect.poll(async () => (await s.get(`${P}/session_recordings/${sessionId}/`)).body.click_count, { timeout: UI_TIMEOUT }).toBe(2);
  const recording = (await s.get(`${P}/session_recordings/${sessionId}/`)).body;
  expect(recording).toMatchObject({ id: sessionId, snapshot_library: "web" });
  expect(recording.start_url).toBe(`${siteBase}/shop`);
  expect(recording.keypress_count).toBeGreaterThanOrEqual(1);
  const listed = (await s.get(`${P}/session_recordings/?date_from=all`)).body.results.map((r: { id: string }) => r.id);
  expect(listed).toContain(sessionId);
  const sources = (await s.get(`${P}/session_recordings/${sessionId}/snapshots/`)).body.sources;
  expect(sources.length).toBeGreaterThanOrEqual(1);
  // A full snapshot (type 2) is among the lines, as the player needs one to start.
  const lines = await fetch(`${s.base}${P}/session_recordings/${sessionId}/snapshots/?source=blob_v2&start_blob_key=0&end_blob_key=${sources.length - 1}`, {
    headers: { authorization: "Bearer phx_test_owner_key_0001" },
  }).then((r) => r.text());
  expect(lines.trimEnd().split("\n").map((l) => JSON.parse(l)[1].type)).toContain(2);
  expect(refused).toEqual([]);
  await page.close();
}
