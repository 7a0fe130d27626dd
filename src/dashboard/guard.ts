import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { type Session, type Sessions, sameSecret } from "./auth.js";

export const sessionCookie = "mercury_dashboard";

export type DashboardEnv = { Variables: { session: Session } };

/**
 * No inline script or style, nothing from another origin, no framing, no plugins, forms only to
 * ourselves: a string that slipped past escaping still could not run.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    c.header("Content-Security-Policy", contentSecurityPolicy);
    c.header("X-Content-Type-Options", "nosniff");
    c.header("X-Frame-Options", "DENY");
    // Not "no-referrer": with it Chromium sends `Origin: null` on our own form posts, which the
    // Origin check must refuse. "same-origin" still sends nothing to other sites.
    c.header("Referrer-Policy", "same-origin");
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    c.header("Cross-Origin-Resource-Policy", "same-origin");
    // Pages carry memories and transcripts: never kept in a shared or disk cache.
    if (!c.res.headers.has("Cache-Control")) c.header("Cache-Control", "no-store");
  };
}

export function refusal(c: Context, status: 401 | 403 | 400 | 415, message: string): Response {
  return c.text(message, status);
}

/**
 * DNS rebinding: a page on evil.example that re-points its name at 127.0.0.1 reaches us with
 * `Host: evil.example`. Only the names this server was started under are answered, on every route.
 */
export function hostCheck(allowedHosts: () => readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const host = (c.req.header("host") ?? "").toLowerCase();
    if (!allowedHosts().includes(host))
      return refusal(c, 403, "refused: this Host is not the dashboard's address (DNS-rebinding defence)");
    return next();
  };
}

const safeMethods = new Set(["GET", "HEAD"]);

/**
 * A foreign Origin is refused on every request; a state-changing request must also name our
 * origin (browsers always send it on POST) and not come from another site.
 */
export function originCheck(allowedOrigins: () => readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header("origin");
    const fetchSite = c.req.header("sec-fetch-site");
    if (origin !== undefined && !allowedOrigins().includes(origin.toLowerCase()))
      return refusal(c, 403, "refused: the request came from another origin");
    if (!safeMethods.has(c.req.method)) {
      if (origin === undefined) return refusal(c, 403, "refused: a state-changing request without Origin");
      if (fetchSite !== undefined && fetchSite !== "same-origin")
        return refusal(c, 403, "refused: a state-changing request from another site");
    }
    return next();
  };
}

/** Every route but the login link needs a live session cookie; the answer otherwise is 401. */
export function sessionCheck(sessions: Sessions): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const session = sessions.get(getCookie(c, sessionCookie));
    if (!session)
      return refusal(c, 401, "Not logged in. Run `mercury dashboard open` for a one-time login link.");
    c.set("session", session);
    return next();
  };
}

/**
 * Anti-CSRF: a state-changing request carries the session's token, in the `x-csrf-token` header
 * (fetch) or the `csrf` form field. Only form and JSON bodies are accepted.
 */
export function csrfCheck(): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    if (safeMethods.has(c.req.method)) return next();
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
    let given = c.req.header("x-csrf-token");
    if (type === "application/x-www-form-urlencoded") {
      const body = await c.req.parseBody();
      const field = body.csrf;
      if (given === undefined && typeof field === "string") given = field;
    } else if (type !== "application/json") {
      return refusal(c, 415, "refused: send a form or JSON body");
    }
    if (given === undefined || !sameSecret(given, c.get("session").csrf))
      return refusal(c, 403, "refused: missing or wrong anti-CSRF token; reload the page and try again");
    return next();
  };
}
