// Insights as pictures: a saved insight (GET insights/:id/), an ad-hoc query (POST query/) or a dashboard's tiles
// (GET dashboards/:id/), each drawn from the answer the API gives.
import { product, session } from "./api.js";
import { CHART_KINDS, drawResults, kindOf } from "./charts.js";
import { field, h, problem, projectSelect } from "./dom.js";

const events = (...names) => names.map((event) => ({ kind: "EventsNode", event }));
const lastTwoWeeks = { date_from: "-14d" };
const entity = { id: "$pageview", type: "events" };

/** A first query of each kind, to edit. */
export const TEMPLATES = {
  trends: { kind: "TrendsQuery", series: events("$pageview"), dateRange: lastTwoWeeks },
  funnels: { kind: "FunnelsQuery", series: events("$pageview", "signup", "purchase"), dateRange: { date_from: "-30d" } },
  retention: { kind: "RetentionQuery", retentionFilter: { targetEntity: entity, returningEntity: entity, period: "Day", totalIntervals: 7 }, dateRange: lastTwoWeeks },
  lifecycle: { kind: "LifecycleQuery", series: events("$pageview"), dateRange: lastTwoWeeks },
  stickiness: { kind: "StickinessQuery", series: events("$pageview"), dateRange: lastTwoWeeks },
  paths: { kind: "PathsQuery", pathsFilter: { includeEventTypes: ["$pageview"] }, dateRange: lastTwoWeeks },
};

export function insightsView(root) {
  let projectId = session.projects[0]?.id;
  const chart = h("div", { class: "chart", id: "chart" });
  const title = h("h2", { id: "chart-title" });
  const saved = h("ul", { class: "picks", id: "saved-insights" });
  const boards = h("ul", { class: "picks", id: "dashboards" });
  const tiles = h("div", { class: "tiles", id: "tiles" });
  const kind = h("select", { name: "kind", onchange: () => (query.value = JSON.stringify(TEMPLATES[kind.value], null, 2)) }, CHART_KINDS.map((k) => h("option", { value: k }, k)));
  const query = h("textarea", { name: "query", rows: 10, spellcheck: "false" });
  query.value = JSON.stringify(TEMPLATES.trends, null, 2);
  const show = async (label, load) => {
    title.textContent = label;
    tiles.replaceChildren();
    chart.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    try {
      await load();
    } catch (e) {
      chart.replaceChildren(problem(e));
    }
  };
  const openInsight = (insight) =>
    show(insight.name ?? insight.derived_name ?? `Insight ${insight.id}`, async () => {
      const full = await product(projectId, "GET", `insights/${insight.id}/`);
      drawResults(chart, kindOf(full.query, full.filters), full.result, full);
      chart.dataset.insight = insight.id;
    });
  const runQuery = () =>
    show(`Ad-hoc ${kind.value}`, async () => {
      const asked = JSON.parse(query.value);
      const answer = await product(projectId, "POST", "query/", { query: asked });
      drawResults(chart, kindOf(asked), answer.results, { query: asked });
    });
  const openDashboard = (board) =>
    show(board.name, async () => {
      const full = await product(projectId, "GET", `dashboards/${board.id}/`);
      chart.replaceChildren();
      delete chart.dataset.kind;
      tiles.replaceChildren(
        ...(full.tiles ?? [])
          .filter((t) => t.insight)
          .map((t) => {
            const box = h("div", { class: "chart" });
            drawResults(box, kindOf(t.insight.query, t.insight.filters), t.insight.result, t.insight);
            return h("section", { class: "tile", dataset: { insight: t.insight.id } }, h("h3", {}, t.insight.name ?? t.insight.derived_name ?? `Insight ${t.insight.id}`), box);
          }),
      );
    });
  const loadLists = async () => {
    try {
      const [insights, dashboards] = await Promise.all([product(projectId, "GET", "insights/?limit=100"), product(projectId, "GET", "dashboards/?limit=100")]);
      saved.replaceChildren(...insights.results.map((i) => h("li", {}, h("button", { onclick: () => openInsight(i), dataset: { insight: i.id } }, i.name ?? i.derived_name ?? `Insight ${i.id}`))));
      boards.replaceChildren(...dashboards.results.map((d) => h("li", {}, h("button", { onclick: () => openDashboard(d), dataset: { dashboard: d.id } }, d.name))));
    } catch (e) {
      saved.replaceChildren(problem(e));
    }
  };
  root.replaceChildren(
    h(
      "div",
      { class: "insights" },
      h(
        "div",
        { class: "pickers" },
        field("Project", projectSelect(session.projects, (ev) => ((projectId = ev.target.value), loadLists()))),
        h("details", { open: true }, h("summary", {}, "Saved insights"), saved),
        h("details", {}, h("summary", {}, "Dashboards"), boards),
        h("details", { open: true }, h("summary", {}, "Ad-hoc query"), field("Kind", kind), query, h("button", { id: "run-query", onclick: runQuery }, "Run")),
      ),
      h("div", { class: "canvas" }, title, chart, tiles),
    ),
  );
  void loadLists();
  return { stop() {} };
}
