import { AnalysisInputError, reject } from "../../core/analysis-errors.ts";
import type { ActionRecord, ActionStep, ActionStepMatching } from "../../store/schema.ts";
import { HREF_PATTERN, TEXT_PATTERN, isSet, selectorRegex, tagNameRegex } from "../../util/action-elements.ts";
import { and, call, compare, constant, field, type Node } from "./ast.ts";
import { propertyExpr } from "./placeholders.ts";
import type { PropertyFilter } from "./types.ts";

/**
 * `matchesAction(id or name)`: the action's steps as one HogQL condition (PostHog `action_to_expr`), printed in
 * place of the call. The conditions are the ones analyses match with (src/analyses/shared/action-match.ts).
 */
export function findPrintedAction(actions: readonly ActionRecord[] | undefined, arg: Node | undefined): ActionRecord {
  const value = arg?.node === "Constant" ? arg.value : undefined;
  if (typeof value !== "string" && typeof value !== "number") throw reject.invalid("query", "matchesAction() takes an action id or name as a constant");
  const found = (actions ?? []).find((a) => (typeof value === "number" ? a.id === value : a.name === value));
  if (!found) throw reject.invalid("query", `Action ${JSON.stringify(value)} does not exist in this project`);
  return found;
}

/** `exact` is equality, `contains` LIKE `%…%` (ILIKE when `caseInsensitive`), `regex` ClickHouse's `match`. */
function matching(value: Node, pattern: string, how: ActionStepMatching, caseInsensitive: boolean): Node {
  if (how === "exact") return compare("==", value, constant(pattern));
  if (how === "regex") return compare("=~", value, constant(pattern));
  return compare(caseInsensitive ? "ilike" : "like", value, constant(`%${pattern}%`));
}

const chain = () => field("elements_chain");

function elementExprs(step: ActionStep): Node[] {
  const exprs: Node[] = [];
  if (isSet(step.selector)) exprs.push(compare("=~", chain(), constant(selectorRegex(step.selector))));
  if (isSet(step.tag_name)) exprs.push(compare("=~", chain(), constant(tagNameRegex(step.tag_name))));
  if (isSet(step.href)) exprs.push(matching(call("extract", chain(), constant(HREF_PATTERN)), step.href, step.href_matching ?? "exact", true));
  if (isSet(step.text)) {
    const test: Node = { node: "Lambda", args: ["x"], expr: matching(field("x"), step.text, step.text_matching ?? "exact", true) };
    exprs.push(call("arrayExists", test, call("extractAll", chain(), constant(TEXT_PATTERN))));
  }
  return exprs;
}

function stepExpr(step: ActionStep, attr: string): Node {
  const exprs: Node[] = [];
  if (isSet(step.event)) exprs.push(compare("==", field("event"), constant(step.event)));
  if (step.event === "$autocapture") exprs.push(...elementExprs(step));
  if (isSet(step.url)) exprs.push(matching(field("properties", "$current_url"), step.url, step.url_matching ?? "contains", false));
  (step.properties ?? []).forEach((p, i) => exprs.push(propertyExpr(p as unknown as PropertyFilter, `${attr}__properties__${i}`)));
  return exprs.length ? and(...exprs) : constant(true);
}

/**
 * Any step matches; an action without steps matches nothing. A step HogQL cannot print (a property filter
 * operator it lacks) is a 400 on the query, naming the action and the step's field.
 */
export function actionExpr(action: ActionRecord): Node {
  const steps = action.steps.map((s, i) => {
    try {
      return stepExpr(s, `steps__${i}`);
    } catch (e) {
      if (!(e instanceof AnalysisInputError)) throw e;
      throw reject.invalid("query", `matchesAction(${action.id}): ${e.attr ?? `steps__${i}`}: ${e.message}`);
    }
  });
  if (steps.length === 0) return constant(false);
  return steps.length === 1 ? steps[0]! : { node: "Or", exprs: steps };
}
