import type { Context } from "openapi-backend";
import type { LoadOptions, Control } from "./service.ts";

/** `?reset_point=true` on a load: later resets restore what it loaded. */
export const loadOptionsOf = (c: Context): LoadOptions => ({ resetPoint: (c.request.query as { reset_point?: boolean }).reset_point === true });

/** The control API's steering operations (scenarios by name), spread into the control router's handler map. */
export const steerHandlers = {
  control_scenarios_list: (_c: Context, control: Control) => ({ results: control.scenarios() }),
  control_scenarios_load: (c: Context, control: Control) => control.loadScenario(String(c.request.params.name), loadOptionsOf(c)),
};
