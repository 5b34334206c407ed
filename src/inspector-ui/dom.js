// Small DOM helpers: elements from a tag, attributes and children; text is always text (never HTML).

/** `h("button", { onclick, class: "x" }, "Go")`. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : String(child));
  return el;
}

/** JSON as an indented, selectable block. */
export const jsonBlock = (value) => h("pre", { class: "json" }, JSON.stringify(value, null, 2));

const two = (n) => String(n).padStart(2, "0");

/**
 * A time as the viewer's local clock reads it, `2024-03-05 13:00:00`, written by hand: the browser's default
 * locale may be one Intl refuses (`en-US@posix` from a POSIX shell), and one format sorts by eye.
 */
export function timeOf(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return "";
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** A time as a <time> whose date part a narrow screen may hide (the clock part is what changes between rows). */
export function timeCell(iso, className = "c-time") {
  const [date = "", clock = ""] = timeOf(iso).split(" ");
  return h("time", { class: className, datetime: iso }, h("span", { class: "date" }, `${date} `), clock);
}

/** A line that says what went wrong, where the view shows its state. */
export const problem = (e) => h("p", { class: "problem", role: "alert" }, String(e?.message ?? e));

/** A labelled input. */
export const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);

/** A project picker over the session's projects. */
export function projectSelect(projects, onchange) {
  return h("select", { name: "project", onchange }, projects.map((p) => h("option", { value: p.id }, `${p.id} · ${p.name}`)));
}
