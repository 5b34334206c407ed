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
