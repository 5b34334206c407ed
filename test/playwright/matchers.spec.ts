import { test, expect } from "analytics-mock/playwright";

/** The matchers pass and fail as they say, with messages naming what was expected and what arrived. */
const SHOP_URL = process.env.SHOP_URL ?? "http://localhost:3000";

test.use({
  analyticsOptions: {
    scenario: "capture",
    trackingPlan: { events: { "clicked buy": { type: "object", required: ["price"], properties: { price: { type: "number" } } } } },
  },
});

test.beforeEach(async ({ page, analytics }) => {
  await page.goto(`${SHOP_URL}/?api_host=${encodeURIComponent(analytics.url)}&token=${analytics.token}`);
});

test("toHaveOnlyValidEvents fails on an event the plan refuses, naming the property", async ({ page, analytics }) => {
  await page.getByRole("button", { name: "Order with a text price" }).click();
  await expect(analytics).toHaveCaptured({ event: "clicked buy", properties: { price: "12" } });
  await expect(analytics).not.toHaveOnlyValidEvents();
  await expect(expect(analytics).toHaveOnlyValidEvents()).rejects.toThrow(/clicked buy \(.+\): price must be number/);
  expect(analytics.captured({ valid: false })[0]?.errors).toEqual([{ property: "price", message: "price must be number" }]);
});

test("toHaveCaptured fails when no event matches within the timeout, listing what arrived", async ({ page, analytics }) => {
  await page.getByRole("button", { name: "Buy", exact: true }).click();
  await expect(analytics).toHaveCaptured({ event: "clicked buy" });
  await expect(expect(analytics).toHaveCaptured({ event: "clicked buy", properties: { price: 13 } }, { timeout: 500 })).rejects.toThrow(
    /expected a captured event matching \{"event":"clicked buy","properties":\{"price":13\}\} within 500 ms; captured:\n[\s\S]*clicked buy \(.+\) \{"price":12\}/,
  );
  await expect(analytics).not.toHaveCaptured({ event: "clicked buy", properties: { price: 13 } });
});

test("toHaveCapturedTimes fails on one event too many", async ({ page, analytics }) => {
  const buy = page.getByRole("button", { name: "Buy", exact: true });
  await buy.click();
  await buy.click();
  await expect(analytics).toHaveCapturedTimes({ event: "clicked buy" }, 2);
  await expect(expect(analytics).toHaveCapturedTimes({ event: "clicked buy" }, 1)).rejects.toThrow(/expected 1 captured event\(s\) matching .*, got 2/);
});

test("toHaveCaptured says when the server refused the captures, and why", async ({ page, analytics }) => {
  await page.goto(`${SHOP_URL}/?api_host=${encodeURIComponent(analytics.url)}&token=phc_not_this_projects_token`);
  await page.getByRole("button", { name: "Buy", exact: true }).click();
  // posthog-js sends the batch a few seconds after the click; the unknown token makes capture answer 401 and store nothing.
  await expect.poll(() => analytics.refused().length, { timeout: 15_000 }).toBeGreaterThan(0);
  await expect(expect(analytics).toHaveCaptured({ event: "clicked buy" }, { timeout: 500 })).rejects.toThrow(
    /the server refused \d+ request\(s\), storing nothing from them:\n[\s\S]*answered 401: Project API key invalid\.[\s\S]*\ncaptured:\n/,
  );
  await expect(expect(analytics).toHaveCapturedTimes({ event: "clicked buy" }, 1, { timeout: 500 })).rejects.toThrow(/got 0:[\s\S]*answered 401: Project API key invalid/);
});

test("toHaveCapturedException waits for an $exception by its type and message, listing the ones that arrived", async ({ page, analytics }) => {
  await page.waitForFunction(() => (globalThis as unknown as { posthog: { __loaded?: boolean } }).posthog.__loaded === true);
  await page.evaluate(() => (globalThis as unknown as { posthog: { captureException(e: Error): void } }).posthog.captureException(new TypeError("cart is undefined")));
  await expect(analytics).toHaveCapturedException({ type: "TypeError", message: "cart is undefined" });
  await expect(expect(analytics).toHaveCapturedException({ message: "cart is empty" }, { timeout: 500 })).rejects.toThrow(
    /expected an \$exception matching \{"message":"cart is empty"\}; exceptions captured:\n.*"type":"TypeError","value":"cart is undefined"/,
  );
  await expect(analytics).not.toHaveCapturedException({ type: "RangeError" });
});
