import { templatePattern } from "./operation-matcher.ts";

/**
 * The real service is moving every project-scoped path under `/api/environments/{id}/` (here an environment
 * is its project). Rather than a second copy of each operation, a path there is routed as its
 * `/api/projects/{id}/` twin, unless the document declares the environment path itself (the query API).
 */
const ENVIRONMENTS = "/api/environments/";
const PROJECTS = "/api/projects/";

/** Maps a routed path (decoded, trailing slash settled) to the path the router matches. */
export function environmentPathRouter(documentedPaths: readonly string[]): (path: string) => string {
  const declared = documentedPaths.filter((t) => t.startsWith(ENVIRONMENTS)).map((t) => templatePattern(t, "[^/]+"));
  return (path) => (path.startsWith(ENVIRONMENTS) && !declared.some((p) => p.test(path)) ? PROJECTS + path.slice(ENVIRONMENTS.length) : path);
}
