import { execSync } from "node:child_process";

/**
 * Vitest global set-up: builds dist/ from the current sources before any test runs, so that the tests which
 * start the server as a process (`npm start` runs dist/main.mjs) and the package's entry points never test a
 * stale bundle.
 */
export default function buildDist(): void {
  execSync("npm run build --silent", { stdio: "inherit" });
}
