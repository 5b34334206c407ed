#!/usr/bin/env node
// Prints the top self-time frames and the top inclusive frames (under src/ by default) of a V8 .cpuprofile,
// e.g. one written by `npm run bench -- --profile DIR` (thread 0 is the server's main thread).
// Usage: [PROFILE_FROM=handleRequest] [PROFILE_FILTER=node_modules] node bench/profile-top.mjs FILE.cpuprofile [N]
import { readFileSync } from "node:fs";

const [file, nArg = "25"] = process.argv.slice(2);
if (!file) {
  console.error("usage: node bench/profile-top.mjs FILE.cpuprofile [N]");
  process.exit(2);
}
const N = Number(nArg);
if (!Number.isInteger(N)) {
  console.error(`N must be an integer, got "${nArg}" (pass one profile file at a time)`);
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, "utf8"));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (cf) => {
  const url = cf.url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
  return `${cf.functionName || "(anonymous)"} ${url ? `${url}:${cf.lineNumber + 1}` : ""}`.trim();
};
// PROFILE_FROM=substring: count only the samples from the first one whose stack has a frame matching it
// (e.g. "handleRequest" skips the start-up and keeps the time under load).
const from = process.env.PROFILE_FROM;
const stackHas = (id, text) => {
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) if (label(byId.get(cur).callFrame).includes(text)) return true;
  return false;
};
let start = 0;
if (from) {
  start = prof.samples.findIndex((id) => stackHas(id, from));
  if (start < 0) start = prof.samples.length;
}
const dt = new Map();
for (let i = start; i < prof.samples.length; i++) dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + (prof.timeDeltas[i] ?? 0));
const total = [...dt.values()].reduce((a, b) => a + b, 0);
const self = new Map();
const incl = new Map();
for (const [id, us] of dt) {
  const key = label(byId.get(id).callFrame);
  self.set(key, (self.get(key) ?? 0) + us);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = label(byId.get(cur).callFrame);
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + us);
  }
}
const pct = (us) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms`;
console.log(`${file}: ${(total / 1000).toFixed(0)} ms sampled${from ? ` from the first stack with "${from}"` : ""}\n\nTop self time:`);
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, N)) console.log(`${pct(us)}  ${k}`);
const filter = process.env.PROFILE_FILTER ?? "src/";
console.log(`\nTop inclusive time (frames matching "${filter}"; PROFILE_FILTER= changes it):`);
for (const [k, us] of [...incl].filter(([k]) => k.includes(filter)).sort((a, b) => b[1] - a[1]).slice(0, N)) console.log(`${pct(us)}  ${k}`);
