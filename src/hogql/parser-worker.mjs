// PostHog's WebAssembly HogQL parser, run in a worker so that the main thread can stop waiting for it (a
// parse that takes too long) and replace it (its instance is left broken by a stack overflow). Plain
// JavaScript: it runs the same from src/ and from the installed package, without a TypeScript loader.
//
// Protocol: { seq, kind, text } arrives on workerData.port; the reply { seq, json | crash, healthy } is posted
// back on it, then signal[0] is set to seq and notified (the main thread waits with Atomics.wait and reads
// the reply with receiveMessageOnPort). signal[1] becomes 1 once the parser is loaded.
import { parentPort, workerData } from "node:worker_threads";
import createHogQLParser from "@posthog/hogql-parser";

const { port, signal } = workerData;
const parser = await createHogQLParser();
// The grammar's prediction caches fill on first use, which makes a cold parse many times a warm one. Warmed here, before the worker says it is ready, so that no request pays for it.
for (const text of [
  "SELECT event, count() AS n, uniq(person_id) FROM events WHERE timestamp > now() - INTERVAL 7 DAY AND (properties.$browser = 'Chrome' OR event IN ('a', 'b')) GROUP BY event ORDER BY n DESC LIMIT 10",
  "SELECT toStartOfDay(timestamp) AS day, countIf(event = '$pageview') FROM events e JOIN persons p ON e.person_id = p.id WHERE NOT (x LIKE '%a%') GROUP BY 1",
]) parser.parseSelect(text, true);
parser.parseExpr("concat(properties.$os, '-', toString(1 + 2 * 3)) != 'x' and person.properties.email ilike '%@example.com'", true);
parser.parseOrderExpr("timestamp DESC", true);

const PARSERS = {
  expr: (t) => parser.parseExpr(t, true),
  select: (t) => parser.parseSelect(t, true),
  order: (t) => parser.parseOrderExpr(t, true),
  // With the nodes' positions: HogQLMetadata's notices and the place of an error in the text.
  exprAt: (t) => parser.parseExpr(t, false),
  selectAt: (t) => parser.parseSelect(t, false),
  program: (t) => parser.parseProgram(t, false),
  // A Hog template is parsed as a template string: the real parser puts "F'" in front (offsets are 2 more).
  template: (t) => parser.parseFullTemplateString(`F'${t}`, false),
};

port.on("message", ({ seq, kind, text }) => {
  const reply = { seq, healthy: true };
  try {
    reply.json = PARSERS[kind](text);
  } catch (e) {
    reply.crash = String(e && e.message ? e.message : e);
  }
  // A parse can return and still leave the instance broken for the next one: check it on a trivial input.
  try {
    parser.parseExpr("1", true);
  } catch {
    reply.healthy = false;
  }
  if (reply.crash) reply.healthy = false;
  port.postMessage(reply);
  Atomics.store(signal, 0, seq);
  Atomics.notify(signal, 0);
});

Atomics.store(signal, 1, 1);
Atomics.notify(signal, 1);
parentPort.postMessage("ready");
