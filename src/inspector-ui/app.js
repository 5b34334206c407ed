// The inspector's shell: one tab per view, chosen by the URL's hash (#events, #requests, …) so a view can be linked.
import { eventsView } from "./events.js";
import { flagsView } from "./flags.js";
import { h } from "./dom.js";
import { insightsView } from "./insights.js";
import { requestsView } from "./requests.js";
import { stateView } from "./state.js";

const VIEWS = {
  events: ["Live events", eventsView],
  requests: ["Requests", requestsView],
  flags: ["Flags", flagsView],
  state: ["State", stateView],
  insights: ["Insights", insightsView],
};

const view = document.getElementById("view");
const tabs = document.getElementById("tabs");
let current = { stop() {} };

function show() {
  const name = location.hash.slice(1) in VIEWS ? location.hash.slice(1) : "events";
  current.stop();
  for (const tab of tabs.children) tab.toggleAttribute("aria-current", tab.dataset.view === name);
  view.dataset.view = name;
  current = VIEWS[name][1](view, { onReset: () => {} });
}

tabs.append(...Object.entries(VIEWS).map(([name, [label]]) => h("a", { href: `#${name}`, dataset: { view: name } }, label)));
addEventListener("hashchange", show);
// A key typed in (when `/` does not show it: a viewer on another machine) redraws the view with it.
document.querySelector("#key-field input").addEventListener("change", show);
show();
