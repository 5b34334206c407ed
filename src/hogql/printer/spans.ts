import type { HogqlNode } from "./ast.ts";

/** Where in the HogQL text an error is: character offsets, end excluded (PostHog's HogQLNotice start/end). */
export interface Span {
  start: number;
  end: number;
}

/** Spans of errors raised over nodes that carry positions (a positioned parse); errors stay plain Errors. */
const spans = new WeakMap<object, Span>();

export const spanOfError = (e: unknown): Span | undefined => (e !== null && typeof e === "object" ? spans.get(e) : undefined);

export function noteSpan(e: unknown, span: Span | undefined): void {
  if (span && e !== null && typeof e === "object" && !spans.has(e)) spans.set(e, span);
}

/** A node's span when the parser gave it positions (`{start: {offset}, end: {offset}}`). */
export function spanOfNode(n: HogqlNode | null | undefined): Span | undefined {
  const start = (n?.start as { offset?: unknown } | undefined)?.offset;
  const end = (n?.end as { offset?: unknown } | undefined)?.offset;
  return typeof start === "number" && typeof end === "number" ? { start, end } : undefined;
}

/**
 * Runs one node's printing; an error raised inside it that no inner node claimed gets this node's span, as the
 * real resolver raises over the node it could not resolve (the innermost one wins).
 */
export function atNode<T>(n: HogqlNode, run: () => T): T {
  try {
    return run();
  } catch (e) {
    noteSpan(e, spanOfNode(n));
    throw e;
  }
}

/** A span as an editor shows it: line and column, both counted from 1. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, Math.max(0, offset));
  const lastBreak = before.lastIndexOf("\n");
  return { line: before.split("\n").length, column: offset - lastBreak };
}

/** The suffix an error's message gets in the API's `detail`: where the error is in the text. */
export function whereInText(text: string, span: Span | undefined): string {
  if (!span) return "";
  const { line, column } = lineColumn(text, span.start);
  return ` (line ${line}, column ${column})`;
}
