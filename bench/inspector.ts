/**
 * The inspector under load (issue 42): `npx tsx bench/inspector.ts [--events N] [--fill N]` (not part of
 * `npm test`; needs Chromium, as the browser tests do, and `npm run build` first). Starts the built server
 * (`dist/main.mjs`) twice: on the default dataset, then with N generated events stored (default 1,000,000) and
 * the request log and the captured log filled with `--fill` entries each (default 10,000: 100 capture batches of
 * 100 events, then reads of a saved insight). For each start, Chromium opens every view of `/_mock/ui/` and the
 * script prints:
 * - `ready`: from the navigation to the view showing its data (the lists' counts, the flags' rows, the data's size,
 *   a saved insight's chart after a click on it). The first view is a fresh load of the page (its `load` event is
 *   printed too); the others are reached as a person does, by their tab (a change of the URL's hash);
 * - `longest task`: the view's longest main-thread task (PerformanceObserver `longtask`, ≥ 50 ms);
 * - `filter`: from typing into a list's filter to the next frame painted with the filtered list (events, requests);
 * - `scroll`: a list scrolled from top to bottom over 60 frames, the slowest frame's interval.
 * What a person feels as responsive (RAIL): input answered within 100 ms, frames within 50 ms, a load within 1 s.
 */
import { parseArgs } from "node:util";
import type { Page } from "playwright-core";
import { defaultApiKey } from "../src/fixtures/generate.ts";
import { derivedProjectToken } from "../src/util/ids.ts";
import { launchChromium } from "../test/support/browser.ts";
import { startChild, type ChildServer } from "../test/support/child-server.ts";
import { findChromium } from "../test/support/external-tools-setup.ts";

const { values: flags } = parseArgs({ options: { events: { type: "string" }, fill: { type: "string" } } });
const EVENTS = Number(flags.events ?? 1_000_000);
const FILL = Number(flags.fill ?? 10_000);
const NOW = "2024-03-05T12:00:00Z";
const KEY = defaultApiKey(42);
const TOKEN = derivedProjectToken("1");
const BATCH = 100;

/** The built server with the dataset's flags, in memory, logging enough for `startChild` to learn its URL. */
const startServer = (dataset: string[]): Promise<ChildServer> =>
  startChild(["--in-memory", "--now", NOW, "--request-log", String(Math.max(FILL, 1000)), "--log-level", "info", ...dataset]);

/** `count` requests, `concurrency` at a time. */
async function inParallel(count: number, concurrency: number, send: (i: number) => Promise<Response>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const answer = await send(next++);
      if (!answer.ok) throw new Error(`fill: ${answer.status} ${await answer.text()}`);
      await answer.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/** `FILL` captured events (in batches) and enough reads after them to make `FILL` request-log entries. */
async function fillLogs(url: string): Promise<void> {
  const batches = Math.ceil(FILL / BATCH);
  await inParallel(batches, 4, (b) => {
    const batch = Array.from({ length: BATCH }, (_, i) => ({ event: i % 5 ? "clicked" : "$pageview", distinct_id: `fill-${(b * BATCH + i) % 500}`, properties: { n: b * BATCH + i } }));
    return fetch(`${url}/batch/`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ api_key: TOKEN, batch }) });
  });
  await inParallel(Math.max(0, FILL - batches), 10, () => fetch(`${url}/api/projects/1/insights/1/`, { headers: { authorization: `Bearer ${KEY}` } }));
}

/** What the in-page functions below use of the page (this project compiles without the DOM library). */
interface PageElement {
  value: string;
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
  dispatchEvent(event: unknown): void;
}
interface PageGlobals {
  document: { querySelector(selector: string): PageElement };
  requestAnimationFrame(callback: () => void): number;
  Event: new (type: string) => unknown;
  PerformanceObserver: new (callback: (list: { getEntries(): { duration: number }[] }) => void) => { observe(options: { type: string; buffered: boolean }): void };
  longest: number;
  __name: (f: unknown) => unknown;
}

/**
 * Collects long tasks from the start of every document. It also defines `__name`, which tsx's transform calls
 * around the named functions inside the functions this script hands to `page.evaluate`.
 */
const OBSERVE_LONG_TASKS = () => {
  const w = globalThis as unknown as PageGlobals;
  w.__name = (f) => f;
  w.longest = 0;
  new w.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) w.longest = Math.max(w.longest, entry.duration);
  }).observe({ type: "longtask", buffered: true });
};

/** What shows that a view has its data. */
const READY: Record<string, string> = {
  events: "#event-count:text-matches('^[0-9]+ of')",
  requests: "#request-count:text-matches('^[0-9]+ of')",
  flags: "tr[data-key]",
  state: "#data-size li[data-count='events']",
  insights: "#saved-insights button[data-insight]",
};

interface Row {
  view: string;
  readyMs: number;
  longestTaskMs: number;
  filterMs?: number;
  scrollFrameMs?: number;
}

/**
 * From typing into a list's filter to the next animation frame (the list redraws synchronously on input, so that
 * frame shows it); the filter is cleared again after.
 */
async function timeFilter(page: Page, input: string, text: string): Promise<number> {
  return page.evaluate(
    ([selector, value]) =>
      new Promise<number>((resolve) => {
        const w = globalThis as unknown as PageGlobals;
        const field = w.document.querySelector(selector);
        const start = performance.now();
        field.value = value;
        field.dispatchEvent(new w.Event("input"));
        w.requestAnimationFrame(() => {
          const ms = performance.now() - start;
          field.value = "";
          field.dispatchEvent(new w.Event("input"));
          resolve(ms);
        });
      }),
    [input, text] as const,
  );
}

/** Scrolls a list from top to bottom in 60 frames; the slowest frame's interval. */
async function timeScroll(page: Page, list: string): Promise<number> {
  return page.evaluate(
    (selector) =>
      new Promise<number>((resolve) => {
        const w = globalThis as unknown as PageGlobals;
        const box = w.document.querySelector(selector);
        const step = (box.scrollHeight - box.clientHeight) / 60;
        let frames = 0;
        let last = performance.now();
        let slowest = 0;
        const tick = () => {
          const now = performance.now();
          slowest = Math.max(slowest, now - last);
          last = now;
          if (frames++ === 60) return resolve(slowest);
          box.scrollTop = frames * step;
          w.requestAnimationFrame(tick);
        };
        box.scrollTop = 0;
        w.requestAnimationFrame(tick);
      }),
    list,
  );
}

/** The ad-hoc query's first template (a trend of the last two weeks, computed afresh over every event), run and drawn. */
async function timeAdHocTrend(page: Page): Promise<Row> {
  await page.evaluate(() => void ((globalThis as unknown as PageGlobals).longest = 0));
  const started = performance.now();
  await page.click("#run-query");
  await page.waitForSelector("#chart-title:text-matches('^Ad-hoc')");
  await page.waitForSelector("#chart[data-kind='trends'] canvas", { timeout: 60_000 });
  const readyMs = performance.now() - started;
  return { view: "insights: ad-hoc trend", readyMs, longestTaskMs: await page.evaluate(() => (globalThis as unknown as PageGlobals).longest) };
}

async function measureViews(url: string, label: string): Promise<void> {
  const found = await findChromium();
  if (!found.found) throw new Error(`Chromium is missing: ${found.problem}`);
  const browser = await launchChromium(found.path);
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
    await page.addInitScript(OBSERVE_LONG_TASKS);
    const rows: Row[] = [];
    let pageLoadMs = 0;
    for (const view of Object.keys(READY)) {
      await page.evaluate(() => void ((globalThis as unknown as PageGlobals).longest = 0)).catch(() => undefined);
      const started = performance.now();
      await page.goto(`${url}/_mock/ui/#${view}`);
      await page.waitForSelector(READY[view]!, { timeout: 60_000 });
      const readyMs = performance.now() - started;
      if (view === "events") pageLoadMs = await page.evaluate(() => (performance.getEntriesByType("navigation" as never)[0] as unknown as { loadEventEnd: number }).loadEventEnd);
      const row: Row = { view, readyMs, longestTaskMs: 0 };
      if (view === "events") {
        row.filterMs = await timeFilter(page, "input[name='event']", "$pageview");
        row.scrollFrameMs = await timeScroll(page, "#events-list");
      }
      if (view === "requests") {
        row.filterMs = await timeFilter(page, "input[name='filter']", "insights 200");
        row.scrollFrameMs = await timeScroll(page, "#requests-list");
      }
      if (view === "insights") {
        const opened = performance.now();
        await page.click("#saved-insights button[data-insight]");
        await page.waitForSelector("#chart[data-kind]", { timeout: 60_000 });
        row.readyMs += performance.now() - opened;
      }
      row.longestTaskMs = await page.evaluate(() => (globalThis as unknown as PageGlobals).longest);
      rows.push(row);
      if (view === "insights") rows.push(await timeAdHocTrend(page));
    }
    const counts = await page.evaluate(async () => (await fetch("/_mock/requests/?limit=1").then((r) => r.json())) as { total?: number });
    console.log(`\n${label} (page load ${pageLoadMs.toFixed(0)} ms${counts.total !== undefined ? `; ${counts.total} requests logged` : ""})`);
    console.log("| view | ready ms | longest task ms | filter ms | slowest scroll frame ms |\n|---|--:|--:|--:|--:|");
    const cell = (ms: number | undefined) => (ms === undefined ? "–" : ms.toFixed(0));
    for (const r of rows) console.log(`| ${r.view} | ${cell(r.readyMs)} | ${r.longestTaskMs ? cell(r.longestTaskMs) : "< 50"} | ${cell(r.filterMs)} | ${cell(r.scrollFrameMs)} |`);
  } finally {
    await browser.close();
  }
}

const plain = await startServer([]);
try {
  await measureViews(plain.url, "default dataset, as started");
} finally {
  await plain.kill();
}
const big = await startServer(["--events", String(EVENTS)]);
try {
  await fillLogs(big.url);
  await measureViews(big.url, `${EVENTS.toLocaleString("en")} generated events, ${FILL.toLocaleString("en")} captured events and log entries`);
} finally {
  await big.kill();
}
