#!/usr/bin/env node
// The command behind `npx analytics-mock`: the TypeScript sources run through tsx, as `npm start` does.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
