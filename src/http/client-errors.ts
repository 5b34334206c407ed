import type { Server } from "node:http";
import type { Duplex } from "node:stream";
import { fail, type ApiError } from "./errors.ts";

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
    const { status, body } = errorFor(err.code);
    const json = JSON.stringify(body);
    socket.end(
      `HTTP/1.1 ${status} ${REASONS[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\nConnection: close\r\n\r\n${json}`,
    );
  });
}
