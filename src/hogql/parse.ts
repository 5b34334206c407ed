import createHogQLParser from "@posthog/hogql-parser";
import { fail } from "../http/errors.ts";

/** A HogQL AST node as PostHog's parser emits it (internal mode: no positions). */
export interface HogqlNode {
  node: string;
  [key: string]: unknown;
}

type Parser = Awaited<ReturnType<typeof createHogQLParser>>;
let parser: Parser | undefined;
const loading = createHogQLParser().then((p) => (parser = p));

/** Resolves once PostHog's WebAssembly HogQL parser is loaded (the app awaits it at start). */
export const hogqlReady = (): Promise<unknown> => loading;

/** Parses one expression with PostHog's own grammar; a syntax error is a 400 naming `attr`. */
export function parseHogqlExpr(text: string, attr: string): HogqlNode {
  if (!parser) throw fail.invalid(attr, "The HogQL parser is still loading; retry.");
  const ast = JSON.parse(parser.parseExpr(text, true)) as HogqlNode & { error?: boolean; message?: string };
  if (ast.error) throw fail.invalid(attr, `HogQL syntax error in "${text}": ${ast.message ?? "unparsable"}`);
  return ast;
}
