import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium, servePosthogPage, posthogPageHtml, QUIET_POSTHOG } from "../support/browser.ts";
import { chromium } from "../support/external-tools.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * posthog-js (its full bundle) with heatmaps switched on by the project (features.json: `heatmaps_opt_in`, which
 * remote config answers as `heatmaps: true`; the page does not set `enable_heatmaps`), on a page of another
 * origin: real clicks in a 1280×720 viewport are flushed as `$$heatmap` (every 5 s) and the heatmaps API answers
 * them at the spot clicked. Headless Chromium looks like a bot to posthog-js: opt_out_useragent_filter.
 */
const UI_TIMEOUT = 60_000;
const P = "/api/projects/1";

const pageHtml = (token: string, apiHost: string) =>
  posthogPageHtml({
    title: "pricing",
    token,
    apiHost,
    options: QUIET_POSTHOG,
    head: "<style>body { margin: 0; height: 700px; } #banner { position: fixed; top: 0; left: 0; width: 320px; height: 96px; }</style>",
    body: '<div id="banner">sale</div><p>plans</p>',
  });

declare const window: { posthog: { __loaded?: boolean; heatmaps?: { isEnabled: boolean } } };

chromium.describe("posthog-js heatmaps against the server", () => {
  let browser: Browser;
  let s: TestServer;
  let site: Awaited<ReturnType<typeof servePosthogPage>>;

  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(scenario("features"));
    site = await servePosthogPage(pageHtml(s.store.projects.get("1")!.api_token, s.base));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  describe("clicks on a page", () => {
    it("are answered by the heatmaps API at the spot clicked", { timeout: 180_000 }, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
      page.setDefaultTimeout(UI_TIMEOUT);
      const failed: string[] = [];
      page.on("response", (r) => {
        if (r.url().startsWith(s.base) && r.status() >= 400) failed.push(`${r.status()}: ${r.url()}`);
      });
      await page.goto(`${site.base}/pricing`);
      await page.waitForFunction(() => window.posthog?.__loaded === true && window.posthog.heatmaps?.isEnabled === true);

      // A scrolling element at (640, 352): 640/16 = 40 of 1280/16 = 80 → x 0.5; 352/16 = 22 → y 352. Twice.
      await page.mouse.click(640, 352);
      await page.mouse.click(640, 352, { delay: 50 });
      // The fixed banner at (160, 48): 160/16 = 10 of 80 = 0.125 → 0.12 (halves to even); 48/16 = 3 → y 48.
      await page.mouse.click(160, 48);

      const clicks = async () => (await s.get(`${P}/heatmaps/?date_from=-1d&type=click`)).body;
      await expect.poll(async () => (await clicks()).results.length, { timeout: UI_TIMEOUT }).toBe(2);
      const answer = await clicks();
      expect(answer.results).toEqual([
        { count: 2, pointer_relative_x: 0.5, pointer_y: 352, pointer_target_fixed: false },
        { count: 1, pointer_relative_x: 0.12, pointer_y: 48, pointer_target_fixed: true },
      ]);
      expect(answer.fold).toEqual({ total_count: 2, below_fold_count: 0, pct_below_fold: 0, median_viewport_height: 720 });
      expect((await s.get(`${P}/heatmaps/?date_from=-1d&type=click&aggregation=unique_visitors`)).body.results.map((r: { count: number }) => r.count)).toEqual([1, 1]);
      // The data came as $$heatmap events, stored with their $heatmap_data.
      const stored = (await s.get(`${P}/events/?event=%24%24heatmap`)).body.results;
      expect(stored.length).toBeGreaterThan(0);
      expect(Object.keys(stored[0].properties.$heatmap_data)).toEqual([`${site.base}/pricing`]);
      expect(failed).toEqual([]);
      await page.close();
    });
  });
});
