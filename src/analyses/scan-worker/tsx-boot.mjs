// Loads a TypeScript worker in the source tree (tests, benchmarks run by tsx): a worker does not inherit the
// parent's loader, so it registers tsx before importing `workerData.entry`. The built package runs its bundle.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
