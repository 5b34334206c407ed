import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_LIMIT } from "../../src/capture/body.ts";
import { applySocketTimeouts, DEFAULT_SOCKET_TIMEOUTS } from "../../src/http/socket-timeouts.ts";
import { assertCaptureConforms } from "../support/capture-contract.ts";
import { assertConforms } from "../support/contract.ts";
import { startHostileServer, type HostileServer } from "../support/hostile-http.ts";
import { lzBomb } from "../support/lz-bomb.ts";
import { OWNER_KEY, scenario } from "../support/server.ts";

/**
 * Issue 38, point 9, on real sockets: a client that stops sending is answered 408 and dropped (slowloris), a
 * request still being answered is never cut, and every body decoder answers 413 at the limit instead of
 * resetting the connection. The idle timeout is 300 ms here (30 s in the server) so that the test is short.
 */
const IDLE_MS = 300;
let s: HostileServer;
let port: number;

beforeAll(async () => {
  s = await startHostileServer(scenario("basic"));
  applySocketTimeouts(s.server, { idleMs: IDLE_MS, headersMs: 5_000, requestMs: 10_000 });
  port = Number(new URL(s.base).port);
});
afterAll(() => s.close());

interface Exchange {
  /** Everything the server wrote before it closed the connection. */
  text: string;
  /** How the connection ended: closed by the server, or reset (ECONNRESET, EPIPE). */
  ended: "closed" | "reset";
}

/** Writes `bytes` on a fresh connection and reads until the server closes it (or 20 s pass: a failure). */
function exchange(bytes: string | Buffer): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open after 20 s; received: ${text.slice(0, 200)}`));
    }, 20_000);
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("error", () => {
      clearTimeout(guard);
      resolve({ text, ended: "reset" });
    });
    socket.on("close", () => {
      clearTimeout(guard);
      resolve({ text, ended: "closed" });
    });
    if (bytes.length > 0) socket.write(bytes);
  });
}

/** The status and JSON body of the first answer on the connection. */
function answerOf(text: string): { status: number; contentType: string | null; body: any } {
  const [head, ...rest] = text.split("\r\n\r\n");
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? "")?.[1]);
  const contentType = /\r\ncontent-type: ([^\r]+)/i.exec(head ?? "")?.[1] ?? null;
  const raw = rest.join("\r\n\r\n");
  // A chunked body (express) is one chunk here: its size line, the JSON, the last chunk.
  const json = /^[0-9a-f]+\r\n/i.test(raw) ? raw.replace(/^[0-9a-f]+\r\n/i, "").replace(/\r\n0\r\n\r\n$/, "") : raw;
  return { status, contentType, body: json ? JSON.parse(json) : undefined };
}

const TIMEOUT_BODY = { type: "invalid_request", code: "request_timeout", detail: "The request was not received in time.", attr: null };

describe("sockets that stop sending are answered 408 and closed", () => {
  it("the server's own timeouts: 30 s of silence, 30 s for the headers, 2 minutes for a whole request", () => {
    expect(DEFAULT_SOCKET_TIMEOUTS).toEqual({ idleMs: 30_000, headersMs: 30_000, requestMs: 120_000 });
  });

  it.each([
    ["a connection that sends nothing", ""],
    ["a request line and half its headers", "GET /api/projects/1/insights/ HTTP/1.1\r\nHost: x\r\n"],
    ["headers, then 10 of the 100 bytes its Content-Length announces", `POST /api/projects/1/query/ HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OWNER_KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query": `],
    ["a capture body that stops half-way", "POST /batch/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{\"api_key\":"],
  ])("%s", async (_name, bytes) => {
    const { text, ended } = await exchange(bytes);
    expect(ended).toBe("closed");
    const answer = answerOf(text);
    expect(answer.status).toBe(408);
    // Not matched to an operation (the request never arrived whole): the Error shape, as Node's other refusals.
    expect(answer.body).toEqual(TIMEOUT_BODY);
  });

  it("never cuts a request while it is being answered, however long the answer takes", async () => {
    // `Prefer: delay=` holds the answer 4 idle periods; the request itself arrived whole at once.
    const request = `GET /api/projects/1/insights/?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OWNER_KEY}\r\nPrefer: delay=${IDLE_MS * 4}\r\nConnection: close\r\n\r\n`;
    const { text, ended } = await exchange(request);
    expect(ended).toBe("closed");
    const answer = answerOf(text);
    expect(answer.status).toBe(200);
    await assertConforms({ method: "GET", path: "/api/projects/1/insights/?limit=1", status: answer.status, contentType: answer.contentType, body: answer.body });
  });

  it("closes a kept-alive connection that sends nothing after its answer (Node's keep-alive timeout) without writing a second answer", async () => {
    const request = `GET /api/projects/1/insights/?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${OWNER_KEY}\r\n\r\n`;
    const { text, ended } = await exchange(request);
    expect(ended).toBe("closed");
    expect(text.match(/^HTTP\/1\.1 /gm)).toHaveLength(1);
    expect(answerOf(text).status).toBe(200);
  });
});

/** A whole request on one connection, `Connection: close`. */
const post = (path: string, contentType: string, body: string | Buffer, extra = "") =>
  Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n${extra}Connection: close\r\n\r\n`), Buffer.from(body)]);

describe("every body decoder answers 413 at the limit, never a reset", () => {
  // Capture's limit of /e/ is 2 MiB after decoding (2,097,152 bytes).
  const overLimit = Buffer.alloc(EVENT_LIMIT + 1, 0x61);
  const cases: [string, string, Buffer][] = [
    ["gzip: 8 MiB of spaces in 8 KiB", "/e/", post("/e/", "text/plain", gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20)))],
    ["gzip by Content-Encoding", "/e/", post("/e/", "application/json", gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20)), "Content-Encoding: gzip\r\n")],
    ["lz64: a bomb of 300,000 codes (860 KB expanding to 45 G characters)", "/e/?compression=lz64", post("/e/?compression=lz64", "text/plain", lzBomb(300_000))],
    ["lz64 inside a form's data field", "/e/", post("/e/", "application/x-www-form-urlencoded", `data=${encodeURIComponent(lzBomb(40_000))}&compression=lz64`)],
    ["base64 of 2 MiB + 1 bytes", "/e/", post("/e/", "text/plain", overLimit.toString("base64"))],
    ["a form's data field of base64 gzip past the limit", "/e/", post("/e/", "application/x-www-form-urlencoded", `data=${encodeURIComponent(gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)).toString("base64"))}`)],
    ["a raw body one byte past the limit", "/e/", post("/e/", "application/json", overLimit)],
  ];
  it.each(cases)("%s", async (_name, path, request) => {
    const { text, ended } = await exchange(request);
    expect(ended).toBe("closed");
    const answer = answerOf(text);
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ type: "invalid_request", code: "payload_too_large", attr: null });
    await assertCaptureConforms("POST", path, answer.status, answer.contentType, answer.body);
  });

  it("the product API's gzip body past --body-limit (1 MiB here)", async () => {
    const request = post("/api/projects/1/query/", "application/json", gzipSync(Buffer.alloc(4 * 1024 * 1024, 0x20)), `Authorization: Bearer ${OWNER_KEY}\r\nContent-Encoding: gzip\r\n`);
    const { text, ended } = await exchange(request);
    expect(ended).toBe("closed");
    const answer = answerOf(text);
    expect(answer.status).toBe(413);
    expect(answer.body).toMatchObject({ type: "invalid_request", code: "payload_too_large" });
    await assertConforms({ method: "POST", path: "/api/projects/1/query/", status: answer.status, contentType: answer.contentType, body: answer.body });
  });
});
