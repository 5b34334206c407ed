import type { ActionRecord, ActionStep } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { selectorRegex } from "../util/action-elements.ts";
import { projectNumber } from "../util/ids.ts";
import { toUserJson } from "./user-json.ts";

const STEP_FIELDS = ["event", "properties", "url", "url_matching", "selector", "tag_name", "text", "text_matching", "href", "href_matching"] as const;

/**
 * A step as stored: its known fields only, each present (null when not set), `url_matching` `contains` when not
 * sent, as the real service's step defaults are.
 */
export function normalizeStep(raw: ActionStep): ActionStep {
  const step = Object.fromEntries(STEP_FIELDS.map((k) => [k, raw[k] ?? null])) as ActionStep;
  if (raw.url_matching === undefined) step.url_matching = "contains";
  return step;
}

function toStepJson(step: ActionStep) {
  const full = normalizeStep(step);
  return { ...full, selector_regex: full.selector ? selectorRegex(full.selector) : null };
}

/** An action as the real actions API shows it; fields of features the mock lacks carry fixed values. */
export function toActionJson(action: ActionRecord, store: Store) {
  const createdAt = action.created_at ?? new Date(0).toISOString();
  return {
    id: action.id,
    name: action.name,
    description: action.description ?? "",
    tags: action.tags ?? [],
    post_to_slack: action.post_to_slack ?? false,
    slack_message_format: action.slack_message_format ?? "",
    steps: action.steps.map(toStepJson),
    created_at: createdAt,
    created_by: toUserJson(store.users.get(action.created_by ?? null)),
    deleted: action.deleted ?? false,
    is_calculating: false,
    last_calculated_at: action.last_calculated_at ?? createdAt,
    team_id: projectNumber({ id: action.project_id }),
    is_action: true as const,
    bytecode_error: null,
    pinned_at: action.pinned_at ?? null,
    creation_context: null,
    user_access_level: "editor",
  };
}
