/** One element of an autocapture chain, as the events API returns it (reference: ingestion-persons-events §5.1). */
export interface ElementJson {
  event: null;
  text: string | null;
  tag_name: string;
  attr_class: string[] | null;
  href: string | null;
  attr_id: string | null;
  nth_child: number | null;
  nth_of_type: number | null;
  attributes: Record<string, string>;
  order: number;
}

/** Splits on a separator that is not inside double quotes (attribute values may contain `;` and `:`). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\\" && quoted) {
      current += ch + (text[i + 1] ?? "");
      i++;
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === separator && !quoted) {
      parts.push(current);
      current = "";
      continue;
    }
    current += ch;
  }
  parts.push(current);
  return parts;
}

const ATTRIBUTE = /([A-Za-z_][\w-]*)="((?:\\.|[^"\\])*)"/g;
const toInt = (v: string | undefined) => (v !== undefined && /^-?\d+$/.test(v) ? Number(v) : null);

function parseElement(text: string, order: number): ElementJson {
  const colon = splitOutsideQuotes(text, ":");
  const selector = colon[0] ?? "";
  const attrText = colon.slice(1).join(":");
  const [tag = "", ...classes] = selector.split(".");
  const attrs: Record<string, string> = {};
  for (const m of attrText.matchAll(ATTRIBUTE)) attrs[m[1]!] = m[2]!.replace(/\\(.)/g, "$1");
  const attributes = Object.fromEntries(Object.entries(attrs).filter(([k]) => k.startsWith("attr__")));
  return {
    event: null,
    text: attrs.text ?? null,
    tag_name: tag,
    attr_class: classes.length ? classes : null,
    href: attrs.href ?? null,
    attr_id: attrs.attr_id ?? null,
    nth_child: toInt(attrs["nth-child"]),
    nth_of_type: toInt(attrs["nth-of-type"]),
    attributes,
    order,
  };
}

/** Parses an `elements_chain`: elements separated by `;`, the clicked one first (order 0). Empty chain: []. */
export function parseElementsChain(chain: string): ElementJson[] {
  if (!chain.trim()) return [];
  return splitOutsideQuotes(chain, ";")
    .filter((part) => part.trim() !== "")
    .map((part, i) => parseElement(part.trim(), i));
}
