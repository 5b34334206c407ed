// The package entry for JavaScript callers: `import { startServer } from "analytics-mock"`.
import { register } from "tsx/esm/api";

register();
const entry = await import("../src/index.ts");
export const startServer = entry.startServer;
