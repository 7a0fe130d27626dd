import { readFileSync } from "node:fs";
import { createServer as createHttpServer, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { LoginTokens, Sessions, sessionTtlMs } from "./auth.js";
import { checkBind, type DashboardBind, isLoopbackHost } from "./bind.js";
import { registerEventStream } from "./event-stream.js";
import {
  csrfCheck,
  type DashboardEnv,
  hostCheck,
  originCheck,
  refusal,
  securityHeaders,
  sessionCheck,
  sessionCookie,
} from "./guard.js";
import { registerPages } from "./pages/index.js";
import type { DashboardServices } from "./services.js";
import { loadStaticAssets } from "./static.js";

export interface DashboardInfo {
  url: string;
  host: string;
  port: number;
  tls: boolean;
  insecureLan: boolean;
}

/**
 * The dashboard's HTTP server inside the daemon. Every request passes, in order: security headers,
 * the Host check, the Origin check, then (all but the login link) the session and anti-CSRF checks.
 */
export class DashboardServer {
  private server: Server | null = null;
  private readonly tokens = new LoginTokens();
  private readonly sessions = new Sessions();
  private allowedHosts: string[] = [];
  private allowedOrigins: string[] = [];
  private info: DashboardInfo | null = null;
  private readonly streams = new Set<() => void>();
  private routeList: { method: string; path: string }[] = [];

  constructor(
    private readonly services: DashboardServices,
    private readonly bind: DashboardBind,
  ) {
    checkBind(bind);
  }

  async listen(): Promise<DashboardInfo> {
    const assets = loadStaticAssets();
    const app = this.build(assets);
    this.routeList = app.routes
      .filter((route) => route.method !== "ALL")
      .map((route) => ({ method: route.method, path: route.path }));
    const listener = getRequestListener(app.fetch, {
      // A request the adapter cannot read (no Host, HTTP/1.0, a backslash in the path) gets a 400:
      // returning nothing leaves that connection open with no answer. Other errors (e.g. a stream the
      // browser closed) have a response under way already, so they are only logged, as before.
      errorHandler: (error) => {
        const unreadable = error instanceof Error && error.name === "RequestError";
        this.services.logger.error(
          { component: "dashboard", error: error instanceof Error ? error.message : String(error) },
          unreadable ? "dashboard request refused" : "dashboard request failed",
        );
        if (!unreadable) return;
        return new Response("refused: a malformed request", {
          status: 400,
          headers: {
            "Content-Type": "text/plain; charset=utf-8",
            "X-Content-Type-Options": "nosniff",
            "Cache-Control": "no-store",
          },
        });
      },
    });
    const server = this.bind.tls
      ? createHttpsServer(
          {
            cert: readPem(this.bind.tls.cert, "dashboard.tlsCert"),
            key: readPem(this.bind.tls.key, "dashboard.tlsKey"),
          },
          listener,
        )
      : createHttpServer(listener);
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          error.code === "EADDRINUSE"
            ? new Error(
                `port ${this.bind.port} on ${this.bind.host} is already in use; choose another with --port or dashboard.port in config.yaml`,
              )
            : error.code === "EADDRNOTAVAIL"
              ? new Error(`${this.bind.host} is not an address of this machine; fix --host or dashboard.host`)
              : error,
        ),
      );
      server.listen(this.bind.port, this.bind.host, () => {
        server.removeAllListeners("error");
        resolve();
      });
    });
    server.on("error", (error) =>
      this.services.logger.error({ component: "dashboard", error: error.message }, "dashboard server error"),
    );
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    const scheme = this.bind.tls ? "https" : "http";
    const names = hostNames(this.bind.host);
    // A browser leaves the port out of Host (and Origin) when it is the scheme's default.
    const defaultPort = port === (this.bind.tls ? 443 : 80);
    this.allowedHosts = names
      .flatMap((name) => (defaultPort ? [`${name}:${port}`, name] : [`${name}:${port}`]))
      .map((name) => name.toLowerCase());
    this.allowedOrigins = this.allowedHosts.map((host) => `${scheme}://${host}`);
    const shown = names[0] ?? "127.0.0.1";
    this.info = {
      url: `${scheme}://${shown}:${port}/`,
      host: this.bind.host,
      port,
      tls: this.bind.tls !== null,
      insecureLan: this.bind.insecureLan,
    };
    return this.info;
  }

  /** Every page and action route (the security tests walk all of them). */
  routes(): { method: string; path: string }[] {
    return this.routeList;
  }

  current(): DashboardInfo | null {
    return this.info;
  }

  /** A fresh one-time login link. The token is in it once; after the exchange the URL is plain. */
  loginLink(): string {
    if (!this.info) throw new Error("the dashboard is not running");
    return `${this.info.url}login?token=${this.tokens.issue()}`;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.info = null;
    this.sessions.clear();
    for (const end of this.streams) end();
    this.streams.clear();
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private build(assets: ReturnType<typeof loadStaticAssets>): Hono<DashboardEnv> {
    const app = new Hono<DashboardEnv>();
    app.use("*", securityHeaders());
    app.use(
      "*",
      hostCheck(() => this.allowedHosts),
    );
    app.use(
      "*",
      originCheck(() => this.allowedOrigins),
    );
    app.get("/login", (c) => {
      const token = c.req.query("token") ?? "";
      if (!this.tokens.consume(token))
        return refusal(
          c,
          401,
          "This login link was already used or has expired. Run `mercury dashboard open` for a new one.",
        );
      const { id } = this.sessions.create();
      setCookie(c, sessionCookie, id, {
        httpOnly: true,
        sameSite: "Strict",
        secure: this.bind.tls !== null,
        path: "/",
        maxAge: Math.floor(sessionTtlMs / 1000),
      });
      // The address bar and history keep "/", never the token.
      return c.redirect("/", 303);
    });
    app.use("*", sessionCheck(this.sessions));
    app.use("*", csrfCheck());
    app.post("/logout", (c) => {
      const id = getCookie(c, sessionCookie);
      if (id) this.sessions.end(id);
      deleteCookie(c, sessionCookie, { path: "/" });
      return c.text("Logged out. Run `mercury dashboard open` to log in again.");
    });
    app.get("/static/:name", (c) => {
      const asset = assets.get(c.req.param("name"));
      if (!asset) return c.text("not found", 404);
      c.header("Cache-Control", "no-cache");
      return c.body(asset.body, 200, { "Content-Type": asset.type });
    });
    registerEventStream(app, this.services, this.streams);
    registerPages(app, this.services);
    app.notFound((c) => c.text("not found", 404));
    app.onError((error, c) => {
      this.services.logger.error(
        { component: "dashboard", error: error.message, route: c.req.routePath },
        "dashboard page failed",
      );
      return c.text(`failed: ${error.message}`, 500);
    });
    return app;
  }
}

/** The names a browser may use for this address (Host header values, without the port). */
function hostNames(host: string): string[] {
  const bracket = (name: string) => (name.includes(":") ? `[${name}]` : name);
  if (isLoopbackHost(host)) return [...new Set([bracket(host), "127.0.0.1", "localhost", "[::1]"])];
  if (host === "0.0.0.0" || host === "::") {
    const addresses = Object.values(networkInterfaces())
      .flat()
      .flatMap((entry) => (entry ? [entry.address] : []));
    return [...new Set(["127.0.0.1", "localhost", ...addresses.map(bracket)])];
  }
  return [bracket(host)];
}

function readPem(file: string, key: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new Error(
      `cannot read ${key} (${file}): ${error instanceof Error ? error.message : String(error)}; fix the path in config.yaml`,
    );
  }
}
