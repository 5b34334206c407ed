import { test, expect } from "analytics-mock/playwright";

// The app under test: a shop page instrumented with posthog-js, which reads its api_host and token from the URL.
const SHOP_URL = process.env.SHOP_URL ?? "http://localhost:3000";

test.use({
  analyticsOptions: {
    scenario: "capture",
    trackingPlan: {
      events: { "clicked buy": { type: "object", required: ["price"], properties: { price: { type: "number" } } } },
    },
  },
});

test("buying sends one 'clicked buy' with its price, as the tracking plan says", async ({ page, analytics }) => {
  await page.goto(`${SHOP_URL}/?api_host=${encodeURIComponent(analytics.url)}&token=${analytics.token}`);
  await page.getByRole("button", { name: "Buy", exact: true }).click();

  // posthog-js batches: the matchers wait on the server until the event arrives (or the expect timeout).
  await expect(analytics).toHaveCaptured({ event: "clicked buy", properties: { price: 12 } });
  await expect(analytics).toHaveCapturedTimes({ event: "clicked buy" }, 1);
  await expect(analytics).toHaveOnlyValidEvents();
});

test("each test starts from a reset server; flags are forced per test", async ({ page, analytics }) => {
  expect(analytics.captured()).toEqual([]);
  analytics.flags.force({ key: "new-checkout", value: true });
  await page.goto(`${SHOP_URL}/?api_host=${encodeURIComponent(analytics.url)}&token=${analytics.token}`);
  await expect(page.getByText("New checkout")).toBeVisible();
});
