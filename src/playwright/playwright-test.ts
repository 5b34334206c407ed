import { createRequire } from "node:module";
import path from "node:path";

type PlaywrightTest = typeof import("@playwright/test");

/**
 * Where `@playwright/test` is looked up: the project Playwright runs in (its working directory) first, then
 * beside the kit. Playwright refuses a second copy in one process ("Requiring @playwright/test second
 * time"), and a kit installed as a symlink to a checkout would otherwise find the checkout's own copy: Node
 * resolves a module from its real path, not from the `node_modules` the link sits in.
 */
export function playwrightTestLocation(cwd: string, kitUrl: string): string {
  try {
    return createRequire(path.join(cwd, "package.json")).resolve("@playwright/test");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw e;
    return createRequire(kitUrl).resolve("@playwright/test");
  }
}

/**
 * The user's `@playwright/test` (a peer dependency), loaded with `require` so that the kit keeps no
 * top-level await: a CommonJS project's Playwright run may `require` the kit.
 */
export function loadPlaywrightTest(): PlaywrightTest {
  return createRequire(import.meta.url)(playwrightTestLocation(process.cwd(), import.meta.url)) as PlaywrightTest;
}
