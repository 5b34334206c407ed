// The request log (GET /_mock/requests/): newest first, filtered here, each openable with "copy as curl".
import { control } from "./api.js";
import { field, h, jsonBlock, problem, timeOf } from "./dom.js";
import { createVirtualList } from "./virtual-list.js";

const ROW_HEIGHT = 34;
const LIMIT = 10_000;

/** What steered an answer instead of its handler (an override, `Prefer`, a rate limit), as the log's notes say it. */
const STEERED = "steered: ";
const steeringOf = (r) => (r.notes ?? []).filter((n) => n.startsWith(STEERED)).map((n) => n.slice(STEERED.length));
/** The log's other notes: how the handler's answer departs from the request's words. */
const otherNotesOf = (r) => (r.notes ?? []).filter((n) => !n.startsWith(STEERED));

/** Single quotes for a POSIX shell. */
const shellQuote = (text) => `'${String(text).replace(/'/g, "'\\''")}'`;

/**
 * The request as a curl command. The key stays masked as the log masks it (`phx_…abcd`): a pasted command never
 * carries a secret; replace it with yours.
 */
export function curlOf(r, origin = location.origin) {
  const url = `${origin}${r.path}${r.query ? `?${r.query}` : ""}`;
  const parts = ["curl", "-X", r.method, shellQuote(url)];
  if (r.path.startsWith("/api/")) parts.push("-H", shellQuote("Authorization: Bearer phx_…"));
  if (r.body !== null) parts.push("-H", shellQuote("Content-Type: application/json"), "--data", shellQuote(typeof r.body === "string" ? r.body : JSON.stringify(r.body)));
  return parts.join(" ");
}

const passes = (text) => (r) => !text || `${r.method} ${r.path} ${r.query} ${r.operation_id ?? ""} ${r.status}`.toLowerCase().includes(text.toLowerCase());

function requestRow(r, open) {
  const steering = steeringOf(r);
  return h(
    "button",
    { class: `row request-row s${String(r.status)[0]}`, dataset: { status: r.status, operation: r.operation_id ?? "" }, onclick: () => open(r) },
    h("span", { class: "c-method" }, r.method),
    h("span", { class: "c-path" }, r.path + (r.query ? `?${r.query}` : "")),
    h("span", { class: "c-op" }, r.operation_id ?? "–"),
    h("span", { class: "c-status" }, r.status),
    h("time", { class: "c-time", datetime: r.at }, `${timeOf(r.at)} · ${r.duration_ms} ms`),
    h("span", { class: "c-steer" }, steering.join(", ")),
  );
}

function detail(r, close) {
  const curl = curlOf(r);
  const copied = h("span", { class: "muted", "aria-live": "polite" });
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(curl);
      copied.textContent = "copied";
    } catch {
      copied.textContent = "select the command and copy it";
    }
  };
  return h(
    "aside",
    { class: "detail", id: "request-detail" },
    h("div", { class: "detail-head" }, h("h2", {}, `${r.method} ${r.path}`), h("button", { onclick: close, "aria-label": "Close" }, "×")),
    h("p", {}, `${r.operation_id ?? "no operation"} · ${r.status} · contract ${r.validation} · ${r.duration_ms} ms · ${timeOf(r.at)}`),
    r.error ? h("p", { class: "problem" }, `${r.error.code}${r.error.attr ? ` on ${r.error.attr}` : ""}`) : null,
    steeringOf(r).length ? h("p", {}, `Steered: ${steeringOf(r).join(", ")}`) : null,
    otherNotesOf(r).map((n) => h("p", { class: "muted" }, n)),
    h("h3", {}, "Copy as curl ", h("button", { id: "copy-curl", onclick: copy }, "Copy"), " ", copied),
    h("pre", { class: "curl", id: "curl" }, curl),
    h("h3", {}, r.body_truncated ? "Body (cut)" : "Body"),
    jsonBlock(r.body),
  );
}

export function requestsView(root) {
  let all = [];
  let filter = "";
  const count = h("span", { class: "muted", id: "request-count" });
  const box = h("div", { class: "list requests-list", id: "requests-list" });
  const side = h("div", { class: "side" });
  const list = createVirtualList(box, { rowHeight: ROW_HEIGHT, render: (r) => requestRow(r, (x) => side.replaceChildren(detail(x, () => side.replaceChildren()))) });
  const redraw = () => {
    const shown = all.filter(passes(filter));
    count.textContent = `${shown.length} of ${all.length} requests`;
    list.set(shown);
  };
  const load = async () => {
    try {
      all = (await control("GET", `requests/?limit=${LIMIT}`)).results;
      redraw();
    } catch (e) {
      root.prepend(problem(e));
    }
  };
  const clear = async () => {
    await control("DELETE", "requests/");
    await load();
  };
  root.replaceChildren(
    h(
      "div",
      { class: "toolbar" },
      field("Filter", h("input", { name: "filter", placeholder: "insights 400", oninput: (ev) => ((filter = ev.target.value), redraw()) })),
      h("button", { onclick: load, id: "refresh-requests" }, "Refresh"),
      h("button", { onclick: clear }, "Clear"),
      count,
    ),
    h("div", { class: "split" }, h("div", { class: "table" }, h("div", { class: "row head request-row" }, ["Method", "Path", "Operation", "Status", "Time", "Steering"].map((t) => h("span", {}, t))), box), side),
  );
  void load();
  return { stop() {} };
}
