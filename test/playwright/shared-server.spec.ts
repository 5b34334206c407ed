// playwright.config.ts: webServer: { port: 8010, command:
//   "npx analytics-mock --in-memory --port 8010 --fixtures capture" }, and the app's URL as baseURL.
// One server for all workers: each test is a shopper of its own, so what it forces and what its page sends
// stay apart from the tests running beside it; it removes what it forced (a global reset would pull forced
// values from under the other workers' tests).
import { test, expect } from "@playwright/test";

const MOCK = process.env.MOCK_URL ?? "http://127.0.0.1:8010";
const post = async (path: string, body: object) =>
  (await fetch(`${MOCK}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })).json() as Promise<Record<string, unknown>>;

let shopper: string;
let forced: string[] = [];
const force = async (key: string, value: boolean | string) => {
  const { id } = await post("/_mock/feature_flags/", { key, value, distinct_id: shopper });
  forced.push(String(id));
};

test.beforeEach(() => {
  shopper = `shopper-${crypto.randomUUID()}`;
});

test.afterEach(async () => {
  for (const id of forced) await fetch(`${MOCK}/_mock/feature_flags/${id}/`, { method: "DELETE" });
  forced = [];
});

test("the green checkout button", async ({ page }) => {
  await force("checkout-experiment", "green");
  await page.goto(`/?shopper=${shopper}`); // posthog.init(token, { api_host: MOCK, bootstrap: { distinctID: shopper } })
  await expect(page.locator("#buy")).toHaveClass("green");
});

test("no welcome banner when the flag is off", async ({ page }) => {
  await force("welcome-banner", false);
  await page.goto(`/?shopper=${shopper}`);
  await expect(page.locator("#banner")).toBeHidden();
});

test("the app records the flag it showed", async ({ page }) => {
  await force("checkout-experiment", "green");
  await page.goto(`/?shopper=${shopper}`);
  // posthog-js adds "$feature/…" to an event only once its flags have arrived: wait for them, then click.
  await expect(page.locator("#buy")).toHaveClass("green");
  await page.locator("#buy").click();
  // posthog-js batches: the server answers once this shopper's event has arrived (or after 15 s).
  const seen = await post("/_mock/captured/wait/", {
    event: "clicked buy", distinct_id: shopper, properties: { "$feature/checkout-experiment": "green" }, timeout_ms: 15_000,
  });
  expect(seen.status).toBe("matched");
});
