import cors from "cors";
import type { NextFunction, Request, Response } from "express";
import { fail } from "../core/errors.ts";

/** Host names a DNS-rebinding page cannot take: an address literal or localhost. */
export const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|\[::ffff:127(\.\d{1,3}){3}\])(:\d+)?$/i;

/**
 * The server's own page (the docs' Try it out) calling it: the Origin names the very host the request was sent
 * to, and that host is a loopback address or `localhost` (a foreign page that rebinds its own name to
 * 127.0.0.1 still shows its own name).
 */
function isOwnLoopbackOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || !LOOPBACK_HOST.test(host)) return false;
  try {
    const url = new URL(origin);
    return (url.protocol === "http:" || url.protocol === "https:") && url.host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * Who may call the control API (`/_mock/…`) from a browser. It resets and replaces the state and shows every
 * request and captured body, so a page of another origin gets neither CORS nor an answer: any call carrying
 * an Origin that is not the server's own or one given with `--control-origins` is refused with 403, a simple
 * POST (which a browser sends without asking first) included. Callers without an Origin (curl, test runners,
 * SDKs in Node) are not concerned.
 */
export function controlOriginPolicy(allowed: readonly string[]) {
  const anyOrigin = allowed.includes("*");
  const permitted = (origin: string, req: Request) => anyOrigin || allowed.includes(origin) || isOwnLoopbackOrigin(origin, req.get("host"));
  const withCors = cors({
    origin: (origin, callback) => callback(null, origin ?? false),
    methods: ["GET", "POST", "PUT", "DELETE"],
    maxAge: 600,
  });
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.get("origin");
    if (origin === undefined) return next();
    if (!permitted(origin, req)) {
      return next(fail.forbidden(`The control API does not answer pages of ${JSON.stringify(origin.slice(0, 200))}: start the server with --control-origins to allow an origin.`));
    }
    withCors(req, res, next);
  };
}
