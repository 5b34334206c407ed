import path from "node:path";
import { describe, expect, it } from "vitest";
import { describeCycle, findCycles, folderGraph, folderOf, relativeImportsOf, sourcesUnder, specifiersOf } from "../support/folder-graph.ts";

const SRC = path.resolve(import.meta.dirname, "../../src");
const graph = folderGraph(SRC);

/** The files that put the server together (STYLE.md, Layout): they import the layers; no layer imports them. */
const ROOT_COMPOSITION = ["app.ts", "main.ts", "server.ts", "index.ts", "config.ts", "memory-budget.ts"].map((f) => path.join(SRC, f));

/**
 * Entry points of their own that stand on the composition files: src/playwright/ is the Playwright fixture package,
 * built from src/playwright/index.ts and published as `analytics-mock/playwright` (package.json `exports`) over the
 * public entry src/index.ts. Nothing imports it back (checked below).
 */
const ENTRY_FOLDERS = ["playwright"];

/** Each offending import as `file -> target`, paths relative to src/. */
function importsBreaking(files: string[], isForbidden: (target: string, file: string) => boolean): string[] {
  return files.flatMap((file) =>
    relativeImportsOf(file)
      .filter((target) => isForbidden(target, file))
      .map((target) => `${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`),
  );
}

const sourcesIn = (folder: string) => sourcesUnder(path.join(SRC, folder));
const isInside = (folder: string, file: string) => !path.relative(path.join(SRC, folder), file).startsWith("..");

describe("the cycle finder", () => {
  const graphOf = (edges: Record<string, string[]>) => new Map(Object.entries(edges));

  it("finds none where every import points one way", () => {
    expect(findCycles(graphOf({ app: ["http", "core"], http: ["services", "core"], services: ["core"], core: [] }))).toEqual([]);
  });

  it("finds a direct cycle, a cycle through others, and two cycles that share a folder, each once", () => {
    const cycles = findCycles(
      graphOf({
        a: ["b"],
        b: ["a", "c"],
        c: ["b"],
        x: ["y"],
        y: ["z"],
        z: ["x", "core"],
        core: [],
        app: ["a", "x"],
      }),
    );
    expect(cycles).toEqual([
      ["a", "b"],
      ["b", "c"],
      ["x", "y", "z"],
    ]);
  });

  it("reports a cycle as a chain naming the file import behind each step", () => {
    const g = new Map([
      ["hogql", new Map([["analyses/shared", ["hogql/evaluate.ts -> analyses/shared/regex.ts"]]])],
      ["analyses/shared", new Map([["hogql", ["analyses/shared/context.ts -> hogql/evaluate.ts"]]])],
    ]);
    expect(describeCycle(g, ["analyses/shared", "hogql"])).toBe(
      [
        "analyses/shared -> hogql -> analyses/shared",
        "  analyses/shared -> hogql   (analyses/shared/context.ts -> hogql/evaluate.ts)",
        "  hogql -> analyses/shared   (hogql/evaluate.ts -> analyses/shared/regex.ts)",
      ].join("\n"),
    );
  });
});

describe("layering of src/", () => {
  it("no folder of src/ imports a folder that imports it back, directly or through others (every folder, subfolders included)", () => {
    const cycles = findCycles(new Map([...graph].map(([from, edges]) => [from, [...edges.keys()]])));
    expect(cycles.map((cycle) => describeCycle(graph, cycle))).toEqual([]);
  });

  it("src/core/ and src/util/ import no other folder of src/ (npm packages and node: are fine)", () => {
    const leaves = ["core", "util"];
    const offenders = leaves.flatMap((folder) => importsBreaking(sourcesIn(folder), (target) => !isInside(folder, target)));
    expect(offenders).toEqual([]);
  });

  it("src/generated/ imports nothing", () => {
    const offenders = sourcesIn("generated").flatMap((file) => specifiersOf(file).map((s) => `${path.relative(SRC, file)} -> ${s}`));
    expect(offenders).toEqual([]);
  });

  it("no folder imports the root composition files (app, main, server, index, config, memory-budget); only other entry points stand on them", () => {
    const layers = sourcesUnder(SRC).filter((file) => folderOf(SRC, file) !== "." && !ENTRY_FOLDERS.some((entry) => isInside(entry, file)));
    expect(importsBreaking(layers, (target) => ROOT_COMPOSITION.includes(target))).toEqual([]);
    const intoEntries = importsBreaking(sourcesUnder(SRC), (target, file) => ENTRY_FOLDERS.some((entry) => isInside(entry, target) && !isInside(entry, file)));
    expect(intoEntries).toEqual([]);
  });

  it("the analyses import nothing from the HTTP layer, the handlers or the services (record types from the store are fine)", () => {
    expect(importsBreaking(sourcesIn("analyses"), (target) => /^(http|handlers|services)\//.test(path.relative(SRC, target)))).toEqual([]);
  });

  it("no two files of the analyses import each other", () => {
    const files = new Set(sourcesIn("analyses"));
    const imports = new Map([...files].map((f) => [f, relativeImportsOf(f).filter((t) => files.has(t))]));
    const pairs = [...imports].flatMap(([file, targets]) =>
      targets.filter((t) => imports.get(t)?.includes(file)).map((t) => `${path.relative(SRC, file)} <-> ${path.relative(SRC, t)}`),
    );
    expect(pairs).toEqual([]);
  });
});
