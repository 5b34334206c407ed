#!/usr/bin/env node
// The command behind `npx analytics-mock`: the prebuilt bundle (`npm run build`, run by `npm install`), as `npm start` runs it.
await import("../dist/main.mjs");
