import { mkdtempSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentEvent } from "../../src/agent/events.js";
import { WorkLedger } from "../../src/agent/ledger.js";
import { DeliveryLedger } from "../../src/agent/ledger-deliveries.js";
import { createApp, type MercuryApp } from "../../src/app/container.js";
import { DaemonGateway } from "../../src/channels/gateway.js";
import type { DashboardBind } from "../../src/dashboard/bind.js";
import { type DashboardInfo, DashboardServer } from "../../src/dashboard/server.js";
import type { DashboardServices } from "../../src/dashboard/services.js";
import type { FakeOpenAIServer } from "../fakes/openai-server.js";

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw HTTP request: the Host, Origin and cookie headers are exactly what the test says. */
export function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<HttpResult> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: "127.0.0.1", port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        // An event stream never ends: its first chunk is enough to see it was accepted.
        if ((response.headers["content-type"] ?? "").startsWith("text/event-stream")) {
          response.once("data", (chunk: Buffer) => {
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body: chunk.toString() });
            request.destroy();
          });
          return;
        }
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    request.on("error", reject);
    if (body !== undefined) request.write(body);
    request.end();
  });
}

export interface Harness {
  app: MercuryApp;
  gateway: DaemonGateway;
  ledger: WorkLedger;
  server: DashboardServer;
  info: DashboardInfo;
  events: AgentEvent[];
  home: string;
  origin: string;
  close(): Promise<void>;
}

/** The real app (real SQLite file, real provider adapter against the loopback fake) and the dashboard. */
export async function startHarness(
  model: FakeOpenAIServer,
  bind: Partial<DashboardBind> = {},
): Promise<Harness> {
  const home = mkdtempSync(join(tmpdir(), "mercury-dashboard-"));
  writeFileSync(join(home, "config.yaml"), "memory:\n  enabled: true\n  extractAutomatically: false\n");
  const app = createApp({
    env: {
      MERCURY_HOME: home,
      HOME: home,
      MERCURY_PROVIDER: "openai-compatible",
      MERCURY_BASE_URL: model.url,
      MERCURY_MODEL: "fake-model",
    },
  });
  const ledger = new WorkLedger(app.database, app.clock);
  const deliveries = new DeliveryLedger(app.database, app.clock);
  const gateway = new DaemonGateway({ app, ledger, deliveries, defaultCwd: home });
  const events: AgentEvent[] = [];
  gateway.subscribe((event) => events.push(event));
  const services: DashboardServices = {
    app,
    gateway,
    ledger,
    ownerKey: "owner",
    status: () => ({
      pid: process.pid,
      version: "test",
      startedAt: new Date().toISOString(),
      uptimeSeconds: 0,
      home,
      channels: [],
      tasks: { active: [], counts: {} },
      pendingApprovals: [],
      budget: { tokensToday: 0, costUsdToday: 0, dailyTokens: null, dailyUsd: null },
      sandbox: { available: true },
      unhandledRejections: 0,
    }),
    logger: app.logger,
    logPath: join(home, "logs", "daemon.log"),
  };
  const server = new DashboardServer(services, {
    host: "127.0.0.1",
    port: 0,
    tls: null,
    insecureLan: false,
    ...bind,
  });
  const info = await server.listen();
  return {
    app,
    gateway,
    ledger,
    server,
    info,
    events,
    home,
    origin: `http://127.0.0.1:${info.port}`,
    async close() {
      await server.close();
      await gateway.idle();
      app.close();
    },
  };
}

export interface LoggedIn {
  cookie: string;
  csrf: string;
}

/** Exchanges a fresh login link for a session cookie and reads the page's anti-CSRF token. */
export async function logIn(harness: Harness): Promise<LoggedIn & { link: string; setCookie: string }> {
  const link = harness.server.loginLink();
  const url = new URL(link);
  const response = await send(harness.info.port, "GET", `${url.pathname}${url.search}`);
  if (response.status !== 303) throw new Error(`login answered ${response.status}: ${response.body}`);
  const setCookie = String(response.headers["set-cookie"] ?? "");
  const cookie = setCookie.split(";")[0] ?? "";
  const home = await send(harness.info.port, "GET", "/", { cookie });
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(home.body)?.[1];
  if (!csrf) throw new Error(`no csrf token in the page: ${home.status} ${home.body.slice(0, 300)}`);
  return { cookie, csrf, link, setCookie };
}
