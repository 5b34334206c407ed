import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../../src/analyses");

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

const importsOf = (file: string) => [...readFileSync(file, "utf8").matchAll(/from "([^"]+)"/g)].map((m) => path.resolve(path.dirname(file), m[1]!));

describe("layering", () => {
  it("the analyses import nothing from the HTTP layer or the handlers (record types from the store are fine)", () => {
    const offenders = sourcesUnder(ROOT).flatMap((file) =>
      importsOf(file)
        .filter((target) => /\/src\/(http|handlers|services)\//.test(target))
        .map((target) => `${path.relative(ROOT, file)} -> ${path.relative(ROOT, target)}`),
    );
    expect(offenders).toEqual([]);
  });

  it("no two files of the analyses import each other", () => {
    const files = new Set(sourcesUnder(ROOT));
    const graph = new Map([...files].map((f) => [f, importsOf(f).filter((t) => files.has(t))]));
    const cycles = [...graph].flatMap(([file, targets]) => targets.filter((t) => graph.get(t)?.includes(file)).map((t) => `${path.relative(ROOT, file)} <-> ${path.relative(ROOT, t)}`));
    expect(cycles).toEqual([]);
  });
});
