import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Which folder imports which, each edge with the file imports that make it (`from.ts -> to.ts`), paths relative to the root. */
export type FolderGraph = Map<string, Map<string, string[]>>;

/** Every TypeScript and JavaScript source under `dir`, subfolders included. */
export function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return /\.[cm]?[jt]s$/.test(entry.name) ? [full] : [];
  });
}

/** `import … from`, `export … from`, side-effect `import "…"` and dynamic `import("…")`: every way a module names another. */
const SPECIFIER = /(?:\bfrom|\bimport)\s*\(?\s*["']([^"']+)["']/g;

/** Every module specifier a file names, npm packages and `node:` included. */
export const specifiersOf = (file: string): string[] => [...readFileSync(file, "utf8").matchAll(SPECIFIER)].map((m) => m[1]!);

/** The files a file imports by relative path, as absolute paths. */
export const relativeImportsOf = (file: string): string[] =>
  specifiersOf(file)
    .filter((s) => s.startsWith("./") || s.startsWith("../"))
    .map((s) => path.resolve(path.dirname(file), s));

/** A file's folder relative to `root`, `.` for the root itself. */
export const folderOf = (root: string, file: string): string => path.relative(root, path.dirname(file)) || ".";

/** The folder graph of the sources under `root`: every folder is a node of its own, a subfolder apart from its parent. */
export function folderGraph(root: string): FolderGraph {
  const graph: FolderGraph = new Map();
  for (const file of sourcesUnder(root)) {
    const from = folderOf(root, file);
    if (!graph.has(from)) graph.set(from, new Map());
    for (const target of relativeImportsOf(file)) {
      const to = folderOf(root, target);
      if (to === from || path.relative(root, target).startsWith("..")) continue;
      const edges = graph.get(from)!;
      if (!edges.has(to)) edges.set(to, []);
      edges.get(to)!.push(`${path.relative(root, file)} -> ${path.relative(root, target)}`);
    }
  }
  return graph;
}

/** Strongly connected components (Tarjan): a component of two or more nodes is a set of folders that import each other. */
function components(graph: Map<string, Iterable<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** The shortest path from `from` to `to` through `allowed` nodes only (breadth first), both ends included. */
function shortestPath(graph: Map<string, Iterable<string>>, from: string, to: string, allowed: Set<string>): string[] {
  const previous = new Map<string, string>([[from, from]]);
  const queue = [from];
  while (queue.length > 0) {
    const node = queue.shift()!;
    if (node === to) break;
    for (const next of graph.get(node) ?? []) {
      if (!allowed.has(next) || previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  const path = [to];
  while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
  return path;
}

/** A cycle written from its smallest node, so that the same cycle found from two edges is one. */
function fromSmallest(cycle: string[]): string[] {
  const start = cycle.indexOf([...cycle].sort()[0]!);
  return [...cycle.slice(start), ...cycle.slice(0, start)];
}

/**
 * The cycles of a directed graph, each as the nodes in order (the last imports the first again). Every edge that
 * lies on a cycle appears in at least one: for each such edge a→b, the shortest way from b back to a.
 */
export function findCycles(edges: Map<string, Iterable<string>>): string[][] {
  const graph = new Map([...edges].map(([from, targets]) => [from, [...targets]]));
  const cycles = new Map<string, string[]>();
  for (const component of components(graph).filter((c) => c.length > 1)) {
    const members = new Set(component);
    for (const from of component) {
      for (const to of graph.get(from) ?? []) {
        if (!members.has(to)) continue;
        const cycle = fromSmallest([from, ...shortestPath(graph, to, from, members).slice(0, -1)]);
        cycles.set(cycle.join("\0"), cycle);
      }
    }
  }
  return [...cycles.values()].sort((a, b) => a.join(" ").localeCompare(b.join(" ")));
}

/** A cycle as a chain a reader can follow: each step with the first file import that makes it. */
export function describeCycle(graph: FolderGraph, cycle: string[]): string {
  const steps = cycle.map((from, i) => {
    const to = cycle[(i + 1) % cycle.length]!;
    return `  ${from} -> ${to}   (${graph.get(from)!.get(to)![0]})`;
  });
  return `${[...cycle, cycle[0]].join(" -> ")}\n${steps.join("\n")}`;
}
