// Insights drawn as the web app draws them, from the API's own answer: trends and stickiness as line (or bar)
// charts, funnels as steps, retention as a cohort table, lifecycle as stacked bars, paths as weighted links.
// Every chart keeps the numbers it drew in data attributes and in a table, so what is drawn can be read back.
import { h } from "./dom.js";

const COLORS = ["#1d4aff", "#621da6", "#42827e", "#ce0e74", "#f14f58", "#7c440e", "#529a0a", "#0476fb"];
/** Lifecycle's statuses in the web app's order and colours; dormant is drawn below zero. */
const LIFECYCLE = [
  ["new", "#1d4aff"],
  ["returning", "#529a0a"],
  ["resurrecting", "#ce0e74"],
  ["dormant", "#f14f58"],
];

const fmt = (n) => (typeof n === "number" ? (Number.isInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ",") : n.toFixed(2)) : String(n ?? ""));
const pct = (part, whole) => (whole ? `${((100 * part) / whole).toFixed(1)}%` : "–");
const secondsOf = (day) => Date.parse(day.length <= 10 ? `${day}T00:00:00Z` : day) / 1000;

/** A uPlot chart that follows its box's width; without uPlot (it refuses a locale Intl cannot read) the table below it stays. */
function plot(box, options, data) {
  if (!globalThis.uPlot) return box.append(h("p", { class: "muted" }, "The chart library did not load; the numbers are in the table."));
  const width = () => Math.max(240, box.clientWidth || 600);
  const chart = new globalThis.uPlot({ width: width(), height: 260, ...options }, data, box);
  new ResizeObserver(() => chart.setSize({ width: width(), height: 260 })).observe(box);
  return chart;
}

const legend = (rows, columns) =>
  h("table", { class: "legend" }, h("thead", {}, h("tr", {}, columns.map((c) => h("th", {}, c)))), h("tbody", {}, rows.map((r) => h("tr", {}, r.map((cell, i) => h("td", { class: i ? "num" : "" }, i ? fmt(cell) : cell))))));

/** Trends or stickiness: one line (or bar) per series over its days; the legend holds each series' points and total. */
function seriesChart(target, results, { bars = false } = {}) {
  const days = results[0]?.days ?? [];
  const box = h("div", { class: "plot" });
  const series = results.map((r, i) => ({ label: r.label ?? r.action?.name ?? `Series ${i + 1}`, data: r.data }));
  target.append(box, legend(series.map((s) => [s.label, s.data.reduce((a, b) => a + b, 0)]), ["Series", "Total"]));
  target.dataset.series = JSON.stringify(series);
  const isDate = days.length > 0 && typeof days[0] === "string" && !Number.isNaN(secondsOf(days[0]));
  const x = isDate ? days.map(secondsOf) : days.map((_d, i) => i + 1);
  const paths = bars && globalThis.uPlot ? globalThis.uPlot.paths.bars({ size: [0.7 / Math.max(1, series.length)] }) : undefined;
  plot(
    box,
    {
      // Counts start at zero, as the web app's axes do.
      scales: { x: { time: isDate }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2, fill: bars ? COLORS[i % COLORS.length] : undefined, paths }))],
      axes: [{}, { size: 50 }],
    },
    [x, ...series.map((s) => s.data)],
  );
}

/** Funnel steps as horizontal bars, each with its count and conversion from the first step and the previous. */
function funnelChart(target, results) {
  const steps = Array.isArray(results[0]) ? results[0] : results;
  const first = steps[0]?.count ?? 0;
  target.dataset.counts = JSON.stringify(steps.map((s) => s.count));
  target.append(
    h(
      "ol",
      { class: "funnel" },
      steps.map((s, i) =>
        h(
          "li",
          { dataset: { count: s.count } },
          h("div", { class: "step-head" }, h("strong", {}, `${i + 1}. ${s.custom_name ?? s.name}`), h("span", { class: "num" }, `${fmt(s.count)} · ${pct(s.count, first)}${i ? ` · ${pct(s.count, steps[i - 1].count)} from previous` : ""}`)),
          h("div", { class: "bar-track" }, h("div", { class: "bar", style: `width:${first ? (100 * s.count) / first : 0}%` })),
        ),
      ),
    ),
  );
}

/** Retention as the cohort table: one row per cohort, its size, then each period's share (count on hover). */
function retentionChart(target, results) {
  const periods = Math.max(0, ...results.map((r) => r.values.length));
  target.dataset.cells = JSON.stringify(results.map((r) => r.values.map((v) => v.count)));
  const shade = (share) => `background:rgba(29,74,255,${(0.08 + 0.8 * share).toFixed(2)});color:${share > 0.5 ? "#fff" : "inherit"}`;
  target.append(
    h(
      "div",
      { class: "scroll" },
      h(
        "table",
        { class: "retention" },
        h("thead", {}, h("tr", {}, h("th", {}, "Cohort"), h("th", {}, "Size"), Array.from({ length: periods }, (_v, i) => h("th", {}, `${i}`)))),
        h(
          "tbody",
          {},
          results.map((r) => {
            const size = r.values[0]?.count ?? 0;
            return h("tr", {}, h("td", {}, r.label ?? r.date), h("td", { class: "num" }, fmt(size)), r.values.map((v) => h("td", { class: "cell", title: `${v.count}`, dataset: { count: v.count }, style: shade(size ? v.count / size : 0) }, pct(v.count, size))));
          }),
        ),
      ),
    ),
  );
}

/** Lifecycle as stacked bars: new, returning and resurrecting above zero, dormant below, per period. */
function lifecycleChart(target, results) {
  const byStatus = Object.fromEntries(results.map((r) => [r.status, r.data]));
  const days = results[0]?.days ?? [];
  const zeros = days.map(() => 0);
  const drawn = LIFECYCLE.map(([status, color]) => ({ status, color, data: byStatus[status] ?? zeros }));
  target.dataset.series = JSON.stringify(drawn.map(({ status, data }) => ({ status, data })));
  const box = h("div", { class: "plot" });
  target.append(box, legend(drawn.map((s) => [s.status, s.data.reduce((a, b) => a + b, 0)]), ["Status", "Total"]));
  // Bars are drawn in series order: the running sums, largest first, so each status shows as its own band.
  const positive = drawn.slice(0, 3);
  const stacked = positive.map((_s, i) => days.map((_d, j) => positive.slice(0, i + 1).reduce((sum, s) => sum + s.data[j], 0))).reverse();
  const bars = globalThis.uPlot?.paths.bars({ size: [0.6] });
  plot(
    box,
    {
      scales: { x: { time: true } },
      series: [{}, ...positive.slice().reverse().map((s) => ({ label: s.status, fill: s.color, stroke: s.color, paths: bars })), { label: "dormant", fill: LIFECYCLE[3][1], stroke: LIFECYCLE[3][1], paths: bars }],
      axes: [{}, { size: 50 }],
    },
    [days.map(secondsOf), ...stacked, drawn[3].data],
  );
}

/** A path node's name without its step number (`2_/pricing` → `/pricing`); a pageview without a URL is named so. */
const stepName = (node) => node.replace(/^\d+_/, "") || "(no URL)";

/** Paths as weighted links, heaviest first, each a bar of its share of the heaviest. */
function pathsChart(target, results) {
  const links = [...results].sort((a, b) => b.value - a.value);
  const most = links[0]?.value ?? 0;
  target.dataset.links = JSON.stringify(links.map((l) => [l.source, l.target, l.value]));
  target.append(h("ol", { class: "paths" }, links.map((l) => h("li", { dataset: { value: l.value } }, h("span", {}, `${stepName(l.source)} → ${stepName(l.target)}`), h("span", { class: "num" }, fmt(l.value)), h("div", { class: "bar", style: `width:${most ? (100 * l.value) / most : 0}%` })))));
}

export const CHART_KINDS = ["trends", "funnels", "retention", "lifecycle", "stickiness", "paths"];

/** The kind of an insight or query: `TrendsQuery` → trends, `filters.insight` "TRENDS" → trends. */
export function kindOf(query, filters) {
  const source = query?.source ?? query;
  const name = source?.kind ? source.kind.replace(/Query$/, "").toLowerCase() : String(filters?.insight ?? "trends").toLowerCase();
  return { trends: "trends", funnels: "funnels", retention: "retention", lifecycle: "lifecycle", stickiness: "stickiness", paths: "paths" }[name] ?? name;
}

/** Whether a trends insight is shown as bars (the web app's `display`). */
const barsOf = (query, filters) => /Bar/.test(query?.source?.trendsFilter?.display ?? query?.trendsFilter?.display ?? filters?.display ?? "");

/** Draws an answer's `results` into `target` (emptied first); a kind without a picture shows its JSON. */
export function drawResults(target, kind, results, { query, filters } = {}) {
  target.replaceChildren();
  target.className = `chart chart-${kind}`;
  target.dataset.kind = kind;
  if (!Array.isArray(results) || results.length === 0) return target.append(h("p", { class: "muted" }, "No results."));
  if (kind === "trends" || kind === "stickiness") return seriesChart(target, results, { bars: barsOf(query, filters) });
  if (kind === "funnels") return funnelChart(target, results);
  if (kind === "retention") return retentionChart(target, results);
  if (kind === "lifecycle") return lifecycleChart(target, results);
  if (kind === "paths") return pathsChart(target, results);
  target.append(h("pre", { class: "json" }, JSON.stringify(results, null, 2)));
}
