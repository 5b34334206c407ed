// The framework ceiling: a bare express 5 hello world, run as its own process by bench/run.ts.
// Usage: node bench/express-hello.mjs PORT
import express from "express";

const app = express();
app.get("/", (_req, res) => {
  res.send("Hello World!");
});
const server = app.listen(Number(process.argv[2] ?? 3000), "127.0.0.1");
process.once("SIGTERM", () => server.close(() => process.exit(0)));
