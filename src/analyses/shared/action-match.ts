import type { ActionStep, ActionStepMatching } from "../../store/schema.ts";
import { chainHref, chainTexts, isSet, selectorRegex, tagNameRegex } from "../../util/action-elements.ts";
import type { FilterContext } from "./context.ts";
import { eventProperty } from "../../core/event-read.ts";
import { compileRowPredicate, type RowPredicate } from "./property-filter.ts";
import { stringForm } from "./property-operators.ts";
import { compileLikePattern, compileUserRegex } from "../../core/regex.ts";

/**
 * Action steps as the real service matches them (`action_to_expr`): every condition a step sets must hold, and
 * `selector`, `tag_name`, `href` and `text` are read from the elements chain of `$autocapture` events only.
 * HogQL's `matchesAction` prints the same conditions (src/hogql/printer/action-expr.ts).
 */

const AUTOCAPTURE = "$autocapture";

/** The conditions a step sets; a step without any is refused at write (it would match every event). */
export function stepConditions(step: ActionStep): string[] {
  const keys = ["event", "url", "selector", "tag_name", "text", "href"] as const;
  const set: string[] = keys.filter((k) => isSet(step[k]));
  if (step.properties?.length) set.push("properties");
  return set;
}

type TextTest = (value: string) => boolean;

/** `exact` (whole text), `contains` (LIKE with `%…%`), `regex` (RE2, anywhere); `caseInsensitive` is for contains. */
export function compileMatching(pattern: string, matching: ActionStepMatching, caseInsensitive: boolean, attr: string): TextTest {
  if (matching === "exact") return (value) => value === pattern;
  if (matching === "regex") {
    const re = compileUserRegex(pattern, attr);
    return (value) => re.test(value);
  }
  const like = compileLikePattern(pattern, { caseInsensitive });
  return (value) => like.test(value);
}

/** The elements-chain conditions of an `$autocapture` step, as tests of the chain text. */
function elementTests(step: ActionStep, attr: string): TextTest[] {
  const tests: TextTest[] = [];
  if (isSet(step.selector)) {
    const re = compileUserRegex(selectorRegex(step.selector), `${attr}__selector`);
    tests.push((chain) => re.test(chain));
  }
  if (isSet(step.tag_name)) {
    const re = compileUserRegex(tagNameRegex(step.tag_name), `${attr}__tag_name`);
    tests.push((chain) => re.test(chain));
  }
  if (isSet(step.href)) {
    const href = compileMatching(step.href, step.href_matching ?? "exact", true, `${attr}__href`);
    tests.push((chain) => href(chainHref(chain)));
  }
  if (isSet(step.text)) {
    const text = compileMatching(step.text, step.text_matching ?? "exact", true, `${attr}__text`);
    tests.push((chain) => chainTexts(chain).some(text));
  }
  return tests;
}

/** One step as a row predicate; `attr` names the step in errors (`steps__0`). */
export function compileActionStep(step: ActionStep, ctx: FilterContext, attr: string): RowPredicate {
  const name = isSet(step.event) ? step.event : null;
  const url = isSet(step.url) ? compileMatching(step.url, step.url_matching ?? "contains", false, `${attr}__url`) : null;
  const elements = name === AUTOCAPTURE ? elementTests(step, attr) : [];
  const props = compileRowPredicate(step.properties ?? [], ctx, `${attr}__properties`);
  return (event, person) => {
    if (!event || (name !== null && event.event !== name)) return false;
    if (url) {
      const current = eventProperty(event, "$current_url");
      if (current === undefined || current === null || !url(stringForm(current))) return false;
    }
    for (const test of elements) if (!test(event.elements_chain ?? "")) return false;
    return props(event, person);
  };
}
