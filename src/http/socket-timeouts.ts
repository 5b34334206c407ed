import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { endWithError } from "./client-errors.ts";
import { fail } from "../core/errors.ts";

export interface SocketTimeouts {
  /** A connection that sends nothing for this long while its request line, headers or body are awaited is answered 408 and closed. */
  idleMs: number;
  /** The whole request line and headers must arrive within this (Node's `headersTimeout`). */
  headersMs: number;
  /** The whole request, body included, must arrive within this (Node's `requestTimeout`). */
  requestMs: number;
}

/**
 * Node's own defaults let a client hold a socket for minutes (headers 60 s, a request 5 minutes, a silent body
 * forever between those checks, which run every 30 s): a few hundred slow clients could hold every socket
 * (issue 38, slowloris). Nothing sent for 30 s while a request is awaited ends it; a request still being
 * answered is never cut (its own limits bound it: the SQL time limit, the analyses' budgets).
 */
export const DEFAULT_SOCKET_TIMEOUTS: Readonly<SocketTimeouts> = { idleMs: 30_000, headersMs: 30_000, requestMs: 120_000 };


/** Sets the timeouts on a listening server; pairs with answerClientErrors, which answers Node's own 408s. */
export function applySocketTimeouts(server: Server, timeouts: SocketTimeouts = DEFAULT_SOCKET_TIMEOUTS): void {
  server.headersTimeout = timeouts.headersMs;
  server.requestTimeout = timeouts.requestMs;
  server.timeout = timeouts.idleMs;
  /** Each socket's request from its arrival until its answer is written: silence then is the server's, not the client's. */
  const inFlight = new WeakMap<Socket, IncomingMessage>();
  /** Sockets that were answered before: idle between requests (keep-alive), closed without a word, as Node does. */
  const answered = new WeakSet<Socket>();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    inFlight.set(req.socket, req);
    res.once("close", () => {
      if (inFlight.get(req.socket) === req) inFlight.delete(req.socket);
      answered.add(req.socket);
    });
  });
  // With a listener here Node leaves every idle socket to it (http's socketOnTimeout).
  server.on("timeout", (socket: Socket) => {
    const req = inFlight.get(socket);
    if (req?.complete) return;
    if (!req && answered.has(socket)) socket.destroy();
    else answerTimeout(socket);
  });
}

/** The API's 408 written straight on the socket (the request may be half-read), then the socket closed. */
function answerTimeout(socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  endWithError(socket, fail.requestTimeout());
  socket.destroySoon();
}
