import { afterAll, beforeAll, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { launchChromium, servePosthogPage, posthogPageHtml, QUIET_POSTHOG } from "../support/browser.ts";
import { captureRequest } from "../support/capture-contract.ts";
import { chromium } from "../support/external-tools.ts";
import { scenario, startTestServer, type TestServer } from "../support/server.ts";

/**
 * Early access features and web experiments in a browser: the real posthog-js bundle (array.full.js, web
 * experiments switched on) on a page of another origin reads the features (`getEarlyAccessFeatures`), enrols its
 * visitor (`updateEarlyAccessFeatureEnrollment`, whose `$set` the server's `/flags` then honours through the
 * flag's `super_groups`), and applies the transform of the variant its web experiment's flag gives. The visitor
 * is identified: with posthog-js's default `person_profiles: "identified_only"` an anonymous visitor's `$set` is
 * not processed, here as in the real service.
 */
const UI_TIMEOUT = 60_000;
const VISITOR = "visitor-1";
/** posthog-js refuses to render web experiments for a headless browser's user agent (its bot list). */
const DESKTOP_UA = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

const pageHtml = (token: string, apiHost: string) =>
  posthogPageHtml({
    title: "app",
    token,
    apiHost,
    options: [...QUIET_POSTHOG, "disable_web_experiments: false", `bootstrap: { distinctID: ${JSON.stringify(VISITOR)}, isIdentifiedID: true }`],
    script: `
  posthog.onFeatureFlags(function () {
    if (window.features) return;
    posthog.getEarlyAccessFeatures(function (features) { window.features = features; }, true);
  });`,
    body: '<h1 id="headline">Original</h1>',
  });

declare const Navigator: { prototype: object };
declare const window: { features?: { name: string; flagKey: string; stage: string }[]; posthog: { updateEarlyAccessFeatureEnrollment(key: string, on: boolean): void } };

chromium.describe("posthog-js early access features and web experiments in a browser", () => {
  let browser: Browser;
  let s: TestServer;
  let site: Awaited<ReturnType<typeof servePosthogPage>>;
  const P = "/api/projects/1";

  beforeAll(async () => {
    browser = await launchChromium();
    s = await startTestServer(scenario("basic"));
    const token = s.store.projects.get("1")!.api_token;
    expect((await s.post(`${P}/early_access_feature/`, { name: "Sprocket", description: "A fancy new sprocket.", stage: "beta" })).status).toBe(201);
    const experiment = await s.post(`${P}/web_experiments/`, {
      name: "Headline",
      variants: { control: { rollout_percentage: 0, transforms: [] }, test: { rollout_percentage: 100, transforms: [{ selector: "#headline", html: "Up, up and away!" }] } },
    });
    expect(experiment.status).toBe(201);
    // Made inactive, as the real service makes it; launched here.
    const flag = (await s.get(`${P}/feature_flags/?search=${experiment.body.feature_flag_key}`)).body.results[0];
    expect((await s.patch(`${P}/feature_flags/${flag.id}/`, { active: true })).status).toBe(200);
    site = await servePosthogPage(pageHtml(token, s.base));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await s?.close();
  });

  const flagsFor = async (distinctId: string) =>
    (await captureRequest(s.base, "POST", "/flags/?v=2", { body: JSON.stringify({ token: s.store.projects.get("1")!.api_token, distinct_id: distinctId }), headers: { "content-type": "application/json" } })).body.flags;

  it("reads the features, enrols the visitor (the next /flags answer turns the flag on) and applies the variant's transform", { timeout: 180_000 }, async () => {
    const context = await browser.newContext({ userAgent: DESKTOP_UA });
    // posthog-js's bot check also reads the client hints (headless Chromium's brand "HeadlessChrome") and
    // `navigator.webdriver` (true under automation): the page is shown as a person's browser would show it.
    await context.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, "userAgentData", { get: () => ({ brands: [{ brand: "Chromium", version: "131" }], mobile: false, platform: "Linux" }) });
      Object.defineProperty(Navigator.prototype, "webdriver", { get: () => false });
    });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    const errors: string[] = [];
    page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
    await page.goto(site.base);

    await page.waitForFunction(() => window.features !== undefined);
    expect(await page.evaluate(() => window.features!.map((f) => [f.name, f.flagKey, f.stage]))).toEqual([["Sprocket", "sprocket", "beta"]]);
    await expect.poll(() => page.locator("#headline").innerHTML(), { timeout: UI_TIMEOUT }).toBe("Up, up and away!");

    expect((await flagsFor(VISITOR)).sprocket).toMatchObject({ enabled: false });
    await page.evaluate(() => window.posthog.updateEarlyAccessFeatureEnrollment("sprocket", true));
    await expect.poll(async () => (await flagsFor(VISITOR)).sprocket, { timeout: UI_TIMEOUT }).toMatchObject({ enabled: true, reason: { code: "super_condition_value" } });
    expect(s.store.persons.byDistinctId("1", VISITOR)?.properties["$feature_enrollment/sprocket"]).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});

