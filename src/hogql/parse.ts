import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { LRUCache } from "lru-cache";
import { reject } from "../core/analysis-errors.ts";
import { projectFile } from "../util/project-files.ts";
import { assertParsable, HOGQL_LIMITS, type HogqlLimits } from "./bounds.ts";
import type { HogqlNode } from "./printer/ast.ts";
import { noteSpan, whereInText, type Span } from "./printer/spans.ts";

/** What to parse; the `…At` kinds keep the nodes' positions (HogQLMetadata, locating an error), the others do not. */
export type ParseKind = "expr" | "select" | "order" | "exprAt" | "selectAt" | "program" | "template";

interface Reply {
  seq: number;
  json?: string;
  crash?: string;
  healthy: boolean;
}

/**
 * The parser's worker. Parsing stays synchronous for its callers (the analyses compile HogQL inside pure
 * functions): the main thread posts the text and waits on a shared flag, at most `parseTimeLimitMs`.
 */
interface ParserWorker {
  worker: Worker;
  port: MessagePort;
  /** [0]: the last answered request's seq; [1]: 1 once the parser is loaded. */
  signal: Int32Array;
  seq: number;
  ready: Promise<void>;
}

const WORKER_FILE = projectFile("src/hogql/parser-worker.mjs");
/** How long a first load may take before a synchronous parse gives up waiting for it. */
const LOAD_WAIT_MS = 10_000;

let parseTimeLimitMs = 2_000;
let limits: HogqlLimits = HOGQL_LIMITS;
let current: ParserWorker | undefined;
/** Parsed texts: the same `where` or breakdown expression is parsed once, not per request. */
const parsed = new LRUCache<string, string>({ max: 1_000, maxSize: 16 << 20, sizeCalculation: (json, key) => json.length + key.length });

function startWorker(): ParserWorker {
  const { port1, port2 } = new MessageChannel();
  const signal = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(WORKER_FILE, { workerData: { port: port2, signal }, transferList: [port2] });
  worker.unref();
  port1.unref();
  const self: ParserWorker = { worker, port: port1, signal, seq: 0, ready: Promise.resolve() };
  self.ready = new Promise<void>((resolve, fail) => {
    worker.once("message", () => resolve());
    worker.once("error", (e) => {
      if (current === self) current = undefined;
      fail(e);
    });
  });
  worker.on("exit", () => {
    if (current === self) current = undefined;
  });
  return self;
}

/** Drops a worker that timed out or broke; the next load starts a fresh one. */
function retire(w: ParserWorker): void {
  if (current === w) current = undefined;
  void w.worker.terminate();
}

/** Starts PostHog's WebAssembly HogQL parser on first use (its start time and memory not paid at start-up) and after a failure. */
export const loadHogql = (): Promise<unknown> => (current ??= startWorker()).ready;

export const hogqlLoaded = (): boolean => current !== undefined && Atomics.load(current.signal, 1) === 1;

/** The longest a parse may hold the main thread (tests shorten it to reach the refusal). */
export function setParseTimeLimit(ms: number): void {
  parseTimeLimitMs = ms;
}

/** The bounds checked before parsing (tests lift them to give the parser what breaks it). */
export function setHogqlLimits(next: HogqlLimits): void {
  limits = next;
}

function readyWorker(): ParserWorker {
  const w = (current ??= startWorker());
  if (Atomics.load(w.signal, 1) !== 1 && Atomics.wait(w.signal, 1, 0, LOAD_WAIT_MS) === "timed-out") {
    retire(w);
    throw new Error("the HogQL parser did not load");
  }
  return w;
}

/** How long a signalled answer may take to show on the port (it did lag on a loaded machine). */
const REPLY_GRACE_MS = 200;
const nap = new Int32Array(new SharedArrayBuffer(4));

/** The worker's answer to `seq`, skipping answers to earlier questions; undefined when none shows up in time. */
function replyFor(w: ParserWorker, seq: number): Reply | undefined {
  const deadline = performance.now() + REPLY_GRACE_MS;
  for (;;) {
    const reply = receiveMessageOnPort(w.port)?.message as Reply | undefined;
    if (reply?.seq === seq) return reply;
    if (reply) continue;
    if (performance.now() > deadline) return undefined;
    Atomics.wait(nap, 0, 0, 1);
  }
}

/** The parser's JSON for one text: bounded first, answered from the cache, else asked of the worker in time. */
function parseJson(kind: ParseKind, text: string, attr: string): string {
  assertParsable(text, attr, limits);
  const key = `${kind}\u0000${text}`;
  const known = parsed.get(key);
  if (known !== undefined) return known;
  const w = readyWorker();
  const seq = ++w.seq;
  w.port.postMessage({ seq, kind, text });
  if (Atomics.wait(w.signal, 0, seq - 1, parseTimeLimitMs) === "timed-out") {
    retire(w);
    throw reject.invalid(attr, `HogQL too complex: parsing it took longer than ${parseTimeLimitMs} ms.`);
  }
  const reply = replyFor(w, seq);
  if (!reply) {
    retire(w);
    throw new Error("the HogQL parser answered out of turn");
  }
  if (!reply.healthy) retire(w);
  if (reply.json === undefined) throw reject.invalid(attr, "HogQL too complex: the parser ran out of stack on it.");
  parsed.set(key, reply.json);
  return reply.json;
}

/** The parser's answer: a tree, or its syntax error with where it is. */
export type ParseOutcome = { ast: HogqlNode; error?: undefined } | { error: { message: string; span: Span | undefined }; ast?: undefined };

/** Parses without throwing on a syntax error (HogQLMetadata reports it); the limits and the time budget still refuse. */
export function parseHogqlOutcome(kind: ParseKind, text: string, attr: string): ParseOutcome {
  const ast = JSON.parse(parseJson(kind, text, attr)) as HogqlNode & { error?: boolean; message?: string; start?: { offset?: number }; end?: { offset?: number } };
  if (!ast.error) return { ast };
  const [start, end] = [ast.start?.offset, ast.end?.offset];
  return { error: { message: ast.message ?? "unparsable", span: typeof start === "number" ? { start, end: typeof end === "number" ? end : start } : undefined } };
}

function parseWith(kind: ParseKind, text: string, attr: string, describe: (message: string) => string): HogqlNode {
  const outcome = parseHogqlOutcome(kind, text, attr);
  if (outcome.ast) return outcome.ast;
  const e = reject.invalid(attr, `${describe(outcome.error.message)}${whereInText(text, outcome.error.span)}`);
  noteSpan(e, outcome.error.span);
  throw e;
}

/** Parses a whole SELECT keeping its nodes' positions, so that an error raised over a node can say where it is. */
export const parseHogqlSelectAt = (text: string, attr: string): HogqlNode => parseWith("selectAt", text, attr, (m) => `HogQL syntax error: ${m}`);

/** Parses one expression with PostHog's own grammar; a syntax error is a 400 naming `attr`. */
export const parseHogqlExpr = (text: string, attr: string): HogqlNode => parseWith("expr", text, attr, (m) => `HogQL syntax error in "${text}": ${m}`);

/** Parses a whole SELECT statement (the SQL of a HogQLQuery); a syntax error is a 400 naming `attr`. */
export const parseHogqlSelect = (text: string, attr: string): HogqlNode => parseWith("select", text, attr, (m) => `HogQL syntax error: ${m}`);

/** Parses one ORDER BY item (`timestamp DESC`); a syntax error is a 400 naming `attr`. */
export const parseHogqlOrder = (text: string, attr: string): HogqlNode => parseWith("order", text, attr, (m) => `HogQL syntax error in "${text}": ${m}`);
