// State: bundled scenarios (load, optionally as the reset point), reset, the clock, the tracking plan and the
// data's size, each through its control API operation.
import { control } from "./api.js";
import { field, h, problem, timeOf } from "./dom.js";

const summaryLine = (s) => `${s.projects} projects, ${s.persons} persons, ${s.events} events, ${s.insights} insights`;

export function stateView(root, { onReset } = {}) {
  const outcome = h("p", { id: "state-outcome", "aria-live": "polite" });
  const report = (promise, say) =>
    promise.then(
      (value) => outcome.replaceChildren(say(value)),
      (e) => outcome.replaceChildren(problem(e)),
    );
  const resetPoint = h("input", { type: "checkbox", name: "reset_point" });
  const clearLogs = h("input", { type: "checkbox", name: "clear_logs", checked: true });
  const scenarios = h("ul", { class: "scenarios" });
  const clockNow = h("strong", { id: "clock-now" });
  const seconds = h("input", { name: "seconds", type: "number", min: 0, value: 86400 });
  const freezeAt = h("input", { name: "freeze_at", type: "datetime-local", step: 1 });
  const plan = h("textarea", { name: "plan", rows: 12, spellcheck: "false" });
  const size = h("div", { id: "data-size" });

  const showClock = (c) => (clockNow.textContent = `${timeOf(c.now)} (${c.now}) · ${c.frozen ? "frozen" : "running"}`);
  const loadClock = () => control("GET", "clock/").then(showClock);
  const loadSize = () =>
    control("GET", "state/").then(
      (s) => size.replaceChildren(h("ul", {}, ["projects", "persons", "events", "insights"].map((k) => h("li", { dataset: { count: k, value: s[k] } }, `${s[k]} ${k}`)))),
      (e) => size.replaceChildren(problem(e)),
    );
  const loadPlan = () => control("GET", "tracking_plan/").then((p) => (plan.value = p.plan ? JSON.stringify(p.plan, null, 2) : ""));
  const afterChange = () => Promise.all([loadClock(), loadSize()]);

  const reset = () =>
    report(
      (async () => {
        const summary = await control("POST", "reset/");
        if (clearLogs.checked) await Promise.all([control("DELETE", "requests/"), control("DELETE", "captured/")]);
        await afterChange();
        onReset?.();
        return summary;
      })(),
      (s) => `Reset: ${summaryLine(s)}${clearLogs.checked ? "; request and captured logs cleared" : ""}.`,
    );
  const loadScenario = (name) =>
    report(
      control("POST", `scenarios/${encodeURIComponent(name)}/${resetPoint.checked ? "?reset_point=true" : ""}`).then(async (s) => (await afterChange(), s)),
      (s) => `Loaded ${name}${resetPoint.checked ? " as the reset point" : ""}: ${summaryLine(s)}.`,
    );
  const advance = () => report(control("POST", "clock/advance/", { seconds: Number(seconds.value) }).then(async (c) => (showClock(c), c)), (c) => `Clock at ${c.now}.`);
  const freeze = () => {
    const at = freezeAt.value ? new Date(freezeAt.value).toISOString() : new Date().toISOString();
    return report(control("PUT", "clock/", { now: at }).then(async (c) => (showClock(c), c)), (c) => `Clock frozen at ${c.now}.`);
  };
  const run = () => report(control("PUT", "clock/", { frozen: false }).then(async (c) => (showClock(c), c)), () => "Clock runs on the wall clock.");
  const uploadPlan = () => {
    let parsed;
    try {
      parsed = JSON.parse(plan.value);
    } catch (e) {
      return outcome.replaceChildren(problem(`The plan is not JSON: ${e.message}`));
    }
    return report(control("PUT", "tracking_plan/", parsed), (p) => `Tracking plan set: ${Object.keys(p.plan.events).length} events.`);
  };
  const removePlan = () => report(control("DELETE", "tracking_plan/").then(() => (plan.value = "")), () => "Tracking plan removed.");
  const planFile = h("input", { type: "file", accept: "application/json,.json", onchange: async (ev) => (plan.value = await ev.target.files[0].text()) });

  root.replaceChildren(
    outcome,
    h(
      "div",
      { class: "cards" },
      h("section", { class: "card" }, h("h2", {}, "Reset"), h("p", {}, "Back to the start-up state, or to the last reset point."), h("label", { class: "check" }, clearLogs, " Also clear the request and captured logs"), h("button", { id: "reset", onclick: reset }, "Reset")),
      h("section", { class: "card" }, h("h2", {}, "Scenarios"), h("label", { class: "check" }, resetPoint, " Load as the reset point (later resets come back here)"), scenarios),
      h("section", { class: "card" }, h("h2", {}, "Clock"), h("p", {}, clockNow), h("div", { class: "inline" }, field("Seconds", seconds), h("button", { onclick: advance, id: "advance" }, "Advance")), h("div", { class: "inline" }, field("Freeze at", freezeAt), h("button", { onclick: freeze }, "Freeze"), h("button", { onclick: run }, "Run"))),
      h("section", { class: "card" }, h("h2", {}, "Data"), size),
      h("section", { class: "card wide" }, h("h2", {}, "Tracking plan"), plan, h("div", { class: "inline" }, planFile, h("button", { onclick: uploadPlan, id: "upload-plan" }, "Upload"), h("button", { onclick: removePlan }, "Remove"))),
    ),
  );
  control("GET", "scenarios/").then(
    (s) => scenarios.replaceChildren(...s.results.map((x) => h("li", {}, h("button", { onclick: () => loadScenario(x.name), dataset: { scenario: x.name } }, `Load ${x.name}`), " ", h("span", { class: "muted" }, x.description)))),
    (e) => scenarios.replaceChildren(problem(e)),
  );
  void loadClock();
  void loadSize();
  void loadPlan();
  return { stop() {} };
}
