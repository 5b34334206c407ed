// A scan worker: counts rows of a column snapshot (shared memory, read in place) with the same kernel the main
// thread runs. Plain JavaScript: it runs the same from src/ and from the installed package.
//
// Protocol: { seq, cols, job } arrives on workerData.port; { seq, result | crash } is posted back, then signal[0]
// is set to seq and notified (the main thread waits with Atomics.wait, reads with receiveMessageOnPort).
// signal[1] becomes 1 once the worker listens.
import { workerData } from "node:worker_threads";
import { countRows } from "./count-kernel.mjs";

const { port, signal } = workerData;
port.on("message", ({ seq, cols, job }) => {
  let reply;
  try {
    reply = { seq, result: countRows(cols, job) };
  } catch (e) {
    reply = { seq, crash: String(e && e.message ? e.message : e) };
  }
  port.postMessage(reply);
  Atomics.store(signal, 0, seq);
  Atomics.notify(signal, 0);
});
Atomics.store(signal, 1, 1);
