/**
 * The real service's checks of a survey write, with its messages (PostHog `posthog/api/survey.py`,
 * SurveySerializerCreateUpdateOnly: `validate_questions`, `validate_appearance`, `validate_conditions`,
 * `validate_schedule`, `validate`). Field checks name their field; the checks of `validate` have no attr, except
 * the external survey ones, which name each field.
 */
import { fail } from "../core/errors.ts";
import type { ActionRecord, FeatureFlagRecord, Properties, SurveyRecord } from "../store/schema.ts";

type Loose = Record<string, unknown>;

const EMAIL_LINK = /^mailto:[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$/;
const FIELDS_NOT_FOR_EXTERNAL = ["linked_flag_id", "targeting_flag_filters"] as const;
const CONDITIONS_NOT_FOR_EXTERNAL = ["url", "urlMatchType", "selector", "seenSurveyWaitPeriodInDays", "linkedFlagVariant", "deviceTypes", "deviceTypesMatchType"];
const SCHEDULES = ["once", "recurring", "always"];

/** A link question's URL: `https` with a host, or a `mailto:` address (an empty link is none). */
function requireValidLink(link: string): void {
  const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(link)?.[1]?.toLowerCase();
  if (scheme !== "https" && scheme !== "mailto") throw fail.invalid("questions", "Link must be a URL with one of these schemes: [https, mailto]");
  if (scheme === "mailto" && !EMAIL_LINK.test(link)) {
    throw fail.invalid("questions", "Invalid mailto link. Please enter a valid mailto link (e.g., mailto:example@domain.com).");
  }
  if (scheme === "https" && !/^https:\/\/[^/?#]/i.test(link)) throw fail.invalid("questions", "Invalid HTTPS URL. Please enter a valid HTTPS link.");
}

function requireValidQuestion(q: Loose): void {
  if (!q.question) throw fail.invalid("questions", "Question text is required");
  if (q.descriptionContentType && !["text", "html"].includes(String(q.descriptionContentType))) {
    throw fail.invalid("questions", "Question descriptionContentType must be one of ['text', 'html']");
  }
  if (Array.isArray(q.choices) && q.choices.some((c) => typeof c !== "string" || c.trim() === "")) throw fail.invalid("questions", "Question choices cannot be empty");
  if (typeof q.link === "string" && q.link !== "") requireValidLink(q.link);
}

/** `validate_questions`: a list of objects, each with its text. */
export function validQuestions(value: unknown): Properties[] | null {
  if (value === null || value === undefined) return null;
  if (!Array.isArray(value) || value.some((q) => typeof q !== "object" || q === null || Array.isArray(q))) throw fail.invalid("questions", "Questions must be a list of objects");
  (value as Loose[]).forEach(requireValidQuestion);
  return value as Properties[];
}

/** `validate_appearance` (white labelling is available: the mock's organization has every feature). */
export function requireValidAppearance(value: Loose | null | undefined): void {
  if (value === null || value === undefined) return;
  const contentType = value.thankYouMessageDescriptionContentType;
  if (contentType && !["text", "html"].includes(String(contentType))) throw fail.invalid("appearance", "thankYouMessageDescriptionContentType must be one of ['text', 'html']");
  if (typeof value.surveyPopupDelaySeconds === "number" && value.surveyPopupDelaySeconds < 0) throw fail.invalid("appearance", "Survey popup delay seconds must be a positive integer");
  if (value.whiteLabel !== undefined && value.whiteLabel !== null && typeof value.whiteLabel !== "boolean") throw fail.invalid("appearance", "whiteLabel must be a boolean");
}

/** `validate_conditions`: an action that activates a survey may not filter on properties. */
export function requireValidConditions(value: Loose | null | undefined, actions: readonly ActionRecord[]): void {
  const values = ((value?.actions as Loose | null | undefined)?.values as Loose[] | undefined) ?? [];
  const ids = new Set(values.filter((v) => typeof v === "object" && v !== null && "id" in v).map((v) => Number(v.id)));
  if (actions.some((a) => ids.has(a.id) && a.steps.some((s) => (s.properties?.length ?? 0) > 0))) {
    throw fail.invalid("conditions", "Survey cannot be activated by an Action with property filters defined on it.");
  }
}

export function requireValidSchedule(value: unknown): void {
  if (value !== null && value !== undefined && !SCHEDULES.includes(String(value))) throw fail.invalid("schedule", "Schedule must be one of: once, recurring, always");
}

/** `validate`'s linked flag checks: the flag exists, and a linked variant is one of its variants. */
export function requireValidLinkedFlag(linkedFlagId: number | null | undefined, conditions: Loose | null | undefined, flags: readonly FeatureFlagRecord[]): void {
  const linked = linkedFlagId ? flags.find((f) => f.id === linkedFlagId) : undefined;
  if (linkedFlagId && !linked) throw fail.invalid(null, "Feature Flag with this ID does not exist");
  const variant = conditions?.linkedFlagVariant;
  if (variant && linked && variant !== "any") {
    const variants = (((linked.filters.multivariate as Loose | null | undefined)?.variants as Loose[] | undefined) ?? []).map((v) => String(v.key));
    if (!variants.includes(String(variant))) {
      throw fail.invalid(
        null,
        variants.length
          ? `Feature flag variant '${String(variant)}' does not exist. Available variants: ${variants.join(", ")}`
          : `Feature flag variant '${String(variant)}' specified but the linked feature flag has no variants`,
      );
    }
  } else if (variant && !linkedFlagId) throw fail.invalid(null, "linkedFlagVariant can only be used when a linked_flag_id is specified");
}

/** Names are unique per project: on create any survey, on update another one. */
export function requireUniqueName(name: string | undefined, surveys: readonly SurveyRecord[], current?: SurveyRecord): void {
  if (name === undefined || name === current?.name) return;
  if (surveys.some((s) => s.name === name && s.id !== current?.id)) {
    throw fail.invalid(null, current ? "There is already another survey with this name." : "There is already a survey with this name.", "unique");
  }
}

/** Targeting that rolls out to everyone is refused: such a survey needs no targeting. */
export function requireTargetingNarrowerThanEveryone(filters: Loose | null | undefined): void {
  const groups = (filters?.groups as Loose[] | undefined) ?? [];
  const everyone = groups.some((g) => (g.rollout_percentage === 100 || g.rollout_percentage === null || g.rollout_percentage === undefined) && ((g.properties as unknown[] | undefined) ?? []).length === 0);
  if (everyone) {
    throw fail.invalid(null, "Invalid operation: User targeting rolls out to everyone. If you want to roll out to everyone, delete this targeting", "invalid");
  }
}

/** An `external_survey` is a page of its own: no flags, no page conditions, no popup delay (each field named). */
export function requireExternalSurveyFieldsAbsent(body: Loose): void {
  if (body.type !== "external_survey") return;
  const field = FIELDS_NOT_FOR_EXTERNAL.find((f) => body[f] !== undefined && body[f] !== null);
  if (field) throw fail.invalid(field, `${field} is not allowed for external surveys`);
  const conditions = (body.conditions ?? {}) as Loose;
  const misplaced = [
    ...CONDITIONS_NOT_FOR_EXTERNAL.filter((f) => conditions[f] !== undefined && conditions[f] !== null),
    ...["actions", "events"].filter((f) => ((conditions[f] as Loose | undefined)?.values as unknown[] | undefined)?.length),
  ];
  if (misplaced.length) throw fail.invalid("conditions", `The following condition fields are not allowed for external surveys: ${misplaced.join(", ")}`);
  const delay = (body.appearance as Loose | null | undefined)?.surveyPopupDelaySeconds;
  if (delay !== undefined && delay !== null) throw fail.invalid("appearance", "surveyPopupDelaySeconds is not allowed for external surveys");
}

/** A running survey's recurrence cannot drop below the iteration it is in. */
export function requireIterationCountReachable(count: number | null | undefined, current: SurveyRecord): void {
  if (current.current_iteration !== null && count !== null && count !== undefined && current.current_iteration > count && count > 0) {
    throw fail.invalid(null, `Cannot change survey recurrence to ${count}, should be at least ${current.current_iteration}`);
  }
}
