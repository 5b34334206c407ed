// Flags: every flag of a project, what /flags answers a typed distinct id (what posthog-js receives), the value
// forced through the control API, and a toggle that forces (POST /_mock/feature_flags/) or releases (DELETE) it.
import { control, flagsFor, product, session } from "./api.js";
import { field, h, problem, projectSelect } from "./dom.js";

const shown = (v) => (v === undefined ? "–" : typeof v === "string" ? v : String(v));

/** The value posthog-js would read for one flag of a /flags?v=2 answer. */
const evaluated = (answer, key) => {
  const flag = answer?.flags?.[key];
  if (!flag) return undefined;
  return flag.enabled ? (flag.variant ?? true) : false;
};

/** The forced value that applies to this project and distinct id: one for the id wins over one for everyone. */
const forcedFor = (forced, key, projectId, distinctId) => {
  const mine = forced.filter((f) => f.key === key && !f.group && (f.project_id === undefined || f.project_id === projectId));
  return mine.find((f) => f.distinct_id === distinctId) ?? mine.find((f) => f.distinct_id === undefined);
};

export function flagsView(root) {
  let projectId = session.projects[0]?.id;
  const distinct = h("input", { name: "distinct_id", value: "user-1", placeholder: "distinct id" });
  const body = h("tbody");
  const note = h("div");
  const load = async () => {
    note.replaceChildren();
    try {
      const project = session.projects.find((p) => p.id === projectId);
      const id = distinct.value.trim() || "user-1";
      const [flags, forced, answer] = await Promise.all([product(projectId, "GET", "feature_flags/?limit=500"), control("GET", "feature_flags/"), flagsFor(project.api_token, id)]);
      body.replaceChildren(...flags.results.map((f) => flagRow(f, forced.results, answer, id)));
    } catch (e) {
      note.replaceChildren(problem(e));
    }
  };
  const flagRow = (flag, forced, answer, id) => {
    const force = forcedFor(forced, flag.key, projectId, id);
    const variants = flag.filters?.multivariate?.variants?.map((v) => v.key) ?? [];
    const choice = h("select", { "aria-label": `value for ${flag.key}` }, [true, false, ...variants].map((v) => h("option", { value: JSON.stringify(v) }, shown(v))));
    // Forcing is for seeing the other value: offer the one this id does not get now.
    choice.value = JSON.stringify(evaluated(answer, flag.key) === true ? false : true);
    const toggle = async () => {
      try {
        if (force) await control("DELETE", `feature_flags/${force.id}/`);
        else await control("POST", "feature_flags/", { key: flag.key, value: JSON.parse(choice.value), distinct_id: id, project_id: projectId });
      } catch (e) {
        note.replaceChildren(problem(e));
      }
      await load();
    };
    return h(
      "tr",
      { dataset: { key: flag.key, evaluated: shown(evaluated(answer, flag.key)), forced: force ? shown(force.value) : "" } },
      h("td", {}, h("strong", {}, flag.key), flag.active ? "" : h("span", { class: "muted" }, " (off)")),
      h("td", { class: "c-evaluated" }, shown(evaluated(answer, flag.key))),
      h("td", { class: "c-forced" }, force ? `${shown(force.value)}${force.distinct_id ? "" : " (everyone)"}` : "–"),
      h("td", {}, force ? null : choice, h("button", { class: "force-toggle", onclick: toggle }, force ? "Release" : "Force")),
    );
  };
  root.replaceChildren(
    h("div", { class: "toolbar" }, field("Project", projectSelect(session.projects, (ev) => ((projectId = ev.target.value), load()))), field("Distinct id", distinct), h("button", { onclick: load, id: "evaluate" }, "Evaluate")),
    note,
    h("div", { class: "scroll" }, h("table", { id: "flags-table" }, h("thead", {}, h("tr", {}, ["Flag", "Evaluated", "Forced", ""].map((t) => h("th", {}, t)))), body)),
    h("p", { class: "muted" }, "Evaluated: what /flags answers this distinct id, as posthog-js receives it (forced values included). Force keeps a value for this id in this project until released or a reset."),
  );
  distinct.addEventListener("change", load);
  void load();
  return { stop() {} };
}
