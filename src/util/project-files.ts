import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The project's root, found by walking up from this module to the package.json: the same answer whether
 * the code runs from src/ (tsx, vitest) or from the prebuilt bundle in dist/.
 */
function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

const PROJECT_ROOT = findProjectRoot(path.dirname(fileURLToPath(import.meta.url)));

/** A file of the project, by its path from the root (e.g. "openapi/openapi.yaml"). */
export const projectFile = (relative: string): string => path.join(PROJECT_ROOT, relative);
