/**
 * What an action step asks of an `$autocapture` event's elements chain, as regular expressions over the chain
 * text, so that analyses (RE2 in process) and HogQL (ClickHouse's `match`/`extract`, also RE2) read it alike.
 * Facts from PostHog's selector compiler (`Selector`, `build_selector_regex`) and `action_to_expr`; the descendant
 * combinator skips whole elements, as its corrected compiler does.
 */

/** An action step's condition counts when it is a non-empty text (null, absent and '' are "not checked"). */
export const isSet = (value: unknown): value is string => typeof value === "string" && value !== "";

/** The first `href` of a chain (ClickHouse `extract` of this gives its group 1, or '' without one). */
export const HREF_PATTERN = '(?::|")href="(.*?)"';
/** Every `text` of a chain (ClickHouse `extractAll` of this gives each group 1). */
export const TEXT_PATTERN = '(?::|")text="(.*?)"';

const hrefRe = new RegExp(HREF_PATTERN);
const textRe = new RegExp(TEXT_PATTERN, "g");

export const chainHref = (chain: string): string => hrefRe.exec(chain)?.[1] ?? "";
export const chainTexts = (chain: string): string[] => [...chain.matchAll(textRe)].map((m) => m[1]!);

const escape = (literal: string): string => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Any element of the chain has this tag name. */
export const tagNameRegex = (tag: string): string => `(^|;)${escape(tag)}(\\.|$|;|:)`;

interface SelectorPart {
  tag: string | null;
  classes: string[];
  /** Chain attribute name → value: `attr_id`, `nth-child`, `nth-of-type`, or a custom attribute's own name. */
  attributes: Array<[string, string]>;
  /** Written as `parent > this`: the element right after the previous part's in the chain. */
  direct: boolean;
}

const ATTRIBUTE = /\[\s*([^\]\s=]+)\s*=\s*(['"])(.*?)\2\s*\]/g;
const POSITIONAL = /:(nth-child|nth-of-type)\((\d+)\)/g;

/** Splits on spaces outside `[…]` and quotes. */
function tokens(selector: string): string[] {
  const out: string[] = [];
  let current = "";
  let inAttribute = false;
  let quote: string | null = null;
  for (const ch of selector) {
    if (quote === null && ch === "[") inAttribute = true;
    if (quote === null && ch === "]") inAttribute = false;
    if (ch === '"' || ch === "'") quote = quote === null ? ch : quote === ch ? null : quote;
    if (ch === " " && !inAttribute) {
      out.push(current);
      current = "";
    } else current += ch;
  }
  out.push(current);
  return out;
}

/** Splits a compound selector on the dots that are not inside `[…]` (Tailwind classes such as `w-[0.5rem]`). */
function splitClasses(text: string): string[] {
  const parts: string[] = [];
  let current = "";
  let depth = 0;
  for (const ch of text) {
    if (ch === "[") depth++;
    if (ch === "]") depth = Math.max(0, depth - 1);
    if (ch === "." && depth === 0) {
      parts.push(current);
      current = "";
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

function parsePart(text: string, direct: boolean): SelectorPart {
  const attributes: Array<[string, string]> = [];
  let rest = text.replace(ATTRIBUTE, (_, key: string, _q, value: string) => {
    attributes.push([key === "id" ? "attr_id" : key, value]);
    return "";
  });
  rest = rest.replace(POSITIONAL, (_, kind: string, n: string) => {
    attributes.push([kind, n]);
    return "";
  });
  const [head = "", ...classes] = splitClasses(rest);
  const [tag = "", id] = head.split("#");
  if (id !== undefined) attributes.push(["attr_id", id]);
  return { tag: tag === "" || tag === "*" ? null : tag, classes, attributes, direct };
}

/** The parts of a CSS selector, the innermost (clicked) element's first, as the chain lists elements. */
export function parseSelector(selector: string): SelectorPart[] {
  const cleaned = selector.replace(/> \* > /g, "").replace(/> \*/g, "").replace(/\\:/g, ":").trim();
  const list = tokens(cleaned).reverse();
  const parts: SelectorPart[] = [];
  list.forEach((token, i) => {
    if (token === ">" || token === "") return;
    parts.push(parsePart(token, i > 0 && list[i - 1] === ">"));
  });
  return parts;
}

const QUOTED = '"(?:\\\\.|[^"])*"';
/** Any run inside one element (a `;` inside a quoted value does not end it). */
const WITHIN = `(?:[^;"]|${QUOTED})*?`;
/** Any number of whole elements. */
const WHOLE_ELEMENTS = `(?:(?:[^;"]|${QUOTED})*;)*`;
/** Attributes in the order the chain writes them: custom ones are `attr__…`, sorted by that name. */
const chainOrder = (key: string): string => (["attr_id", "href", "text", "nth-child", "nth-of-type"].includes(key) ? key : `attr__${key}`);

/** The regular expression a selector becomes over an elements chain ('' for an empty selector, matching anything). */
export function selectorRegex(selector: string): string {
  let regex = "";
  parseSelector(selector).forEach((part, i) => {
    if (i > 0 && !part.direct) regex += WHOLE_ELEMENTS;
    if (part.tag) regex += escape(part.tag);
    if (part.classes.length) regex += `${WITHIN}\\.${[...part.classes].sort().map(escape).join(`\\.${WITHIN}`)}`;
    if (part.attributes.length) {
      regex += WITHIN;
      const sorted = [...part.attributes].sort(([a], [b]) => (chainOrder(a) < chainOrder(b) ? -1 : chainOrder(a) > chainOrder(b) ? 1 : 0));
      for (const [key, value] of sorted) regex += `${escape(key)}="${escape(value)}"${WITHIN}`;
    }
    regex += `${WITHIN}($|;|:([^;^\\s]*(;|$|\\s)))`;
    if (part.direct) regex += ".*";
  });
  return regex ? `(^|;)${regex}` : "";
}
