// Live events: what the capture endpoints stored, newest first, with the tracking plan's verdict. New events come
// in through a long-poll on POST /_mock/captured/wait/ (`after` the newest shown): the server answers when they arrive.
import { control } from "./api.js";
import { field, h, jsonBlock, problem, timeCell, timeOf } from "./dom.js";
import { createVirtualList } from "./virtual-list.js";

const ROW_HEIGHT = 34;
const WAIT_MS = 25_000;
/** The captured ring's size: more than this are never kept, by the server nor here. */
const KEPT = 10_000;

const verdictOf = (e) => (e.valid === null ? "none" : e.valid ? "valid" : "invalid");
const personOf = (e) => e.properties?.$set?.email ?? e.properties?.email ?? (e.properties?.$anon_distinct_id ? `identified (was ${e.properties.$anon_distinct_id})` : "");

/** Whether an event passes the view's filters (empty fields pass all). */
const passes = (filters) => (e) =>
  (!filters.event || e.event.includes(filters.event)) && (!filters.distinct_id || e.distinct_id.includes(filters.distinct_id)) && (!filters.verdict || verdictOf(e) === filters.verdict);

function eventRow(e, open) {
  const verdict = verdictOf(e);
  return h(
    "button",
    { class: `row event-row ${verdict}`, dataset: { uuid: e.uuid, event: e.event, distinctId: e.distinct_id, verdict }, onclick: () => open(e) },
    h("span", { class: "c-event" }, e.event),
    h("span", { class: "c-id" }, e.distinct_id),
    h("span", { class: "c-person" }, personOf(e)),
    timeCell(e.timestamp),
    h("span", { class: `verdict ${verdict}`, title: e.errors.map((x) => x.message).join("; ") }, verdict === "none" ? "–" : verdict, e.errors.length ? ` (${e.errors.length})` : ""),
  );
}

/** The request that carried an event: the captured request whose stored events include it. */
async function requestOf(e) {
  const { results } = await control("GET", `captured/?limit=200&distinct_id=${encodeURIComponent(e.distinct_id)}&event=${encodeURIComponent(e.event)}`);
  return results.find((r) => JSON.stringify(r.decoded ?? "").includes(e.uuid)) ?? results[0] ?? null;
}

function detail(e, close) {
  const request = h("div", {}, h("p", { class: "muted" }, "Loading the request…"));
  requestOf(e).then(
    (r) => request.replaceChildren(r ? h("div", {}, h("p", {}, `${r.method} ${r.path} · ${r.status} · ${r.content_encoding ?? "plain"} · ${r.body_bytes} bytes`), jsonBlock(r.decoded)) : h("p", {}, "No longer in the captured log.")),
    (err) => request.replaceChildren(problem(err)),
  );
  return h(
    "aside",
    { class: "detail", id: "event-detail", dataset: { uuid: e.uuid } },
    h("div", { class: "detail-head" }, h("h2", {}, e.event), h("button", { onclick: close, "aria-label": "Close" }, "×")),
    h("p", {}, `${e.distinct_id} · ${timeOf(e.timestamp)} · captured ${timeOf(e.captured_at)}`),
    e.errors.length ? h("ul", { class: "errors" }, e.errors.map((x) => h("li", {}, `${x.property ? `${x.property}: ` : ""}${x.message}`))) : null,
    h("h3", {}, "Properties"),
    jsonBlock(e.properties),
    h("h3", {}, "The request it came in"),
    request,
  );
}

/** The view; `stop()` ends its long-poll. */
export function eventsView(root) {
  const filters = { event: "", distinct_id: "", verdict: "" };
  let all = [];
  const hangup = new AbortController();
  const count = h("span", { id: "event-count", class: "muted" });
  const status = h("span", { class: "live", id: "live-status" }, "connecting");
  const box = h("div", { class: "list events-list", id: "events-list" });
  const side = h("div", { class: "side" });
  const open = (e) => side.replaceChildren(detail(e, () => side.replaceChildren()));
  const list = createVirtualList(box, { rowHeight: ROW_HEIGHT, render: (e) => eventRow(e, open) });
  const redraw = () => {
    const shown = all.filter(passes(filters));
    count.textContent = `${shown.length} of ${all.length} events`;
    list.set(shown);
  };
  const input = (name, placeholder) => h("input", { name, placeholder, oninput: (ev) => ((filters[name] = ev.target.value), redraw()) });
  const verdict = h("select", { name: "verdict", onchange: (ev) => ((filters.verdict = ev.target.value), redraw()) }, ["", "valid", "invalid", "none"].map((v) => h("option", { value: v }, v || "any verdict")));
  root.replaceChildren(
    h("div", { class: "toolbar" }, field("Event", input("event", "$pageview")), field("Distinct id", input("distinct_id", "user-1")), field("Verdict", verdict), status, count),
    h("div", { class: "split" }, h("div", { class: "table" }, h("div", { class: "row head event-row" }, h("span", {}, "Event"), h("span", {}, "Distinct id"), h("span", {}, "Person"), h("span", {}, "Time"), h("span", {}, "Plan")), box), side),
  );
  const add = (newest) => {
    all = [...newest.reverse(), ...all].slice(0, KEPT);
    redraw();
  };
  (async () => {
    try {
      all = (await control("GET", `captured/events/?limit=${KEPT}`)).results;
      redraw();
      while (!hangup.signal.aborted) {
        status.textContent = "live";
        const after = all[0]?.uuid;
        const answer = await control("POST", "captured/wait/", { timeout_ms: WAIT_MS, ...(after ? { after } : {}) }, hangup.signal);
        if (answer.events.length) add(answer.events);
      }
    } catch (e) {
      if (!hangup.signal.aborted) root.prepend(problem(e));
      status.textContent = "stopped";
    }
  })();
  return { stop: () => hangup.abort() };
}
