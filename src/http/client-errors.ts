import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { fail, type ApiError } from "../core/errors.ts";

const REASONS: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

function errorFor(code: string | undefined): ApiError {
  if (code === "HPE_HEADER_OVERFLOW") return fail.headersTooLarge();
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") return fail.requestTimeout();
  return fail.malformedRequest();
}

/**
 * Requests Node's HTTP parser refuses before express sees them (headers or URL past 16 KiB, a request that
 * is not HTTP, one that took too long) still get the API's Error body instead of Node's bodiless answer.
 */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (err: NodeJS.ErrnoException, socket: Duplex) => {
    if (err.code === "ECONNRESET" || !socket.writable) {
      socket.destroy();
      return;
    }
    endWithError(socket, errorFor(err.code));
  });
}

/** Writes an API error straight on a socket, where there is no response object to answer through, and closes it. */
export function endWithError(socket: Duplex, error: ApiError): void {
  const json = JSON.stringify(error.body);
  socket.end(
    `HTTP/1.1 ${error.status} ${REASONS[error.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
  );
}
