// A scan worker: counts rows of a column snapshot (shared memory, read in place) with the same kernel the main
// thread runs. Plain JavaScript: it runs the same from src/ and from the installed package.
//
// Protocol: { seq, cols, job, claim } arrives on workerData.port; the worker counts chunks while any is left
// (see countChunks), posts { seq, result } when it took one, then records in claim.state[2 + slot] how many it
// took (-1: it failed) and adds them to the chunks counted, claim.state[1]. signal[1] becomes 1 once it listens.
import { workerData } from "node:worker_threads";
import { countChunks, markCounted } from "./count-kernel.mjs";

const { port, signal } = workerData;
port.on("message", ({ seq, cols, job, claim, slot }) => {
  let reply;
  let taken = 0;
  try {
    const counted = countChunks(cols, job, claim);
    taken = counted.taken;
    reply = { seq, result: counted.result };
  } catch (e) {
    reply = { seq, crash: String(e && e.message ? e.message : e) };
  }
  // A job that arrives after the other threads took every chunk costs nothing and is not waited for.
  if (taken > 0) port.postMessage(reply);
  Atomics.store(claim.state, 2 + slot, reply.crash ? -1 : taken);
  if (reply.crash) Atomics.notify(claim.state, 1);
  else markCounted(claim, taken);
});
Atomics.store(signal, 1, 1);
