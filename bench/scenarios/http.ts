/**
 * Scenario "HTTP ratios": a bare express hello world, Prism `mock` and our server on the default dataset,
 * loaded one after another, then side by side in interleaved rounds (the targets' ratios come from those).
 */
import { bench, cannon, check, DURATION, INTERLEAVED_ROUNDS, log, median, rssMb, startOurs, startProc, stopProc, WARMUP, type Endpoint, type Proc } from "../harness.ts";
import { DEFAULT_MIX, READS } from "../requests.ts";
import { interleaved, notes, startups } from "../results.ts";

export async function phaseExpress() {
  const p = await startProc("express hello world", ["bench/express-hello.mjs", "$PORT"], "/");
  startups.push({ what: "bare express 5 hello world", ms: p.startupMs, rssMb: p.rssAfterStartMb });
  await bench("express", p.base, { name: "GET / (hello world)", method: "GET", path: "/", expect: 200 });
  await stopProc(p);
}

export async function phasePrism() {
  const p = await startProc("prism", ["node_modules/@stoplight/prism-cli/dist/index.js", "mock", "-p", "$PORT", "-h", "127.0.0.1", "-v", "silent", "openapi/openapi.yaml"], "/api/projects/");
  startups.push({ what: "Prism 5.14.2 mock (openapi/openapi.yaml)", ms: p.startupMs, rssMb: p.rssAfterStartMb });
  for (const ep of Object.values(READS)) {
    await check(p.base, ep);
    await bench("prism", p.base, ep);
  }
  await stopProc(p);
}

/**
 * The ratios the targets name, measured interleaved: express, Prism and ours run side by side (idle ones cost
 * nothing) and each round loads them in turn, so a slow minute of this shared machine hits all of them alike.
 * Each target's ratio is the median of the per-round ratios.
 */
export async function phaseInterleaved() {
  const express = await startProc("express (interleaved)", ["bench/express-hello.mjs", "$PORT"], "/");
  const prism = await startProc("prism (interleaved)", ["node_modules/@stoplight/prism-cli/dist/index.js", "mock", "-p", "$PORT", "-h", "127.0.0.1", "-v", "silent", "openapi/openapi.yaml"], "/api/projects/");
  const ours = await startOurs("ours (interleaved)", "interleaved", ["--in-memory"]);
  try {
    const count = (JSON.parse((await check(ours.base, READS.list)).body) as { count: number }).count;
    for (let i = count; i < 100; i++) await check(ours.base, { ...DEFAULT_MIX.find((e) => e.method === "POST")! });
    const hello: Endpoint = { name: "GET / (hello world)", method: "GET", path: "/", expect: 200 };
    const loads = { express: [express.base, hello], prismList: [prism.base, READS.list], prismDetail: [prism.base, READS.detail], oursList: [ours.base, READS.list], oursDetail: [ours.base, READS.detail] } as const;
    for (const [base, ep] of Object.values(loads)) await cannon(base, ep, 10, WARMUP);
    const rps: Record<keyof typeof loads, number[]> = { express: [], prismList: [], prismDetail: [], oursList: [], oursDetail: [] };
    for (let round = 0; round < INTERLEAVED_ROUNDS; round++) {
      for (const [name, [base, ep]] of Object.entries(loads) as [keyof typeof loads, (typeof loads)[keyof typeof loads]][]) {
        rps[name].push((await cannon(base, ep, 10, DURATION)).rps);
      }
      log(`interleaved round ${round + 1}: ${Object.entries(rps).map(([k, v]) => `${k} ${v.at(-1)!.toFixed(0)}`).join(", ")} req/s`);
    }
    const ratio = (label: string, ours: number[], other: number[]) => interleaved.push({ label, perRound: ours.map((o, i) => o / other[i]!), ours, other });
    ratio("GET /insights/?limit=100 (100 insights): ours ÷ Prism", rps.oursList, rps.prismList);
    ratio("GET /insights/:id/: ours ÷ Prism", rps.oursDetail, rps.prismDetail);
    ratio("GET /insights/:id/: ours ÷ bare express", rps.oursDetail, rps.express);
    ratio("GET /insights/:id/: Prism ÷ bare express", rps.prismDetail, rps.express);
  } finally {
    for (const p of [ours, prism, express]) await stopProc(p);
  }
}

export async function phaseDefault() {
  // Start-up: median of three starts; the third one is measured under load.
  const runs: Proc[] = [];
  for (let i = 0; i < 3; i++) {
    const p = await startOurs(`ours default #${i + 1}`, "default", ["--in-memory"]);
    runs.push(p);
    if (i < 2) await stopProc(p);
  }
  const startupMs = median(runs.map((r) => r.startupMs));
  startups.push({ what: "ours, default dataset (50 k events, generated, in memory)", ms: startupMs, rssMb: median(runs.map((r) => r.rssAfterStartMb)), note: `median of 3 (${runs.map((r) => r.startupMs.toFixed(0)).join(", ")} ms)` });
  const p = runs[2]!;
  const list = JSON.parse((await check(p.base, READS.list)).body) as { count: number };
  await bench("ours", p.base, { ...READS.list, name: `GET /insights/?limit=100 (as generated: ${list.count} insights)` });
  for (let i = list.count; i < 100; i++) await check(p.base, { ...DEFAULT_MIX.find((e) => e.method === "POST")! });
  const filled = JSON.parse((await check(p.base, READS.list)).body) as { results: unknown[] };
  if (filled.results.length !== 100) throw new Error(`expected a full page of 100 insights, got ${filled.results.length}`);
  await bench("ours", p.base, READS.list);
  await bench("ours", p.base, READS.detail);
  for (const ep of DEFAULT_MIX) {
    await check(p.base, ep);
    await bench("ours", p.base, ep);
  }
  notes.push(`RSS of our server after the default-dataset load (incl. the insights created by POST): ${rssMb(p.serverPid).toFixed(0)} MiB.`);
  await stopProc(p);
}
