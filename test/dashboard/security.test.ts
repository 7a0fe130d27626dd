import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DashboardBindError } from "../../src/dashboard/bind.js";
import { DashboardServer } from "../../src/dashboard/server.js";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import { type Harness, logIn, send, startHarness } from "./dashboard-harness.js";

let model: FakeOpenAIServer;
let harness: Harness;

beforeEach(async () => {
  model = await startFakeOpenAIServer({ replies: [] });
  harness = await startHarness(model);
});

afterEach(async () => {
  await harness.close();
  await model.close();
});

const payload = `<script>alert("x")</script><img src=x onerror="alert(1)"><a href="javascript:alert(2)">click</a> javascript:alert(3)`;

function concrete(path: string): string {
  return path.replace(/:[a-z]+/gi, "1");
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

const formType = { "content-type": "application/x-www-form-urlencoded" };

/** The page carries no markup of its own from data: only escaped text, only our one script. */
function expectInert(body: string): void {
  expect(body).not.toContain("<script>alert");
  expect(body).not.toContain("<img src=x");
  expect(body).not.toMatch(/href="\s*javascript:/i);
  expect(body).not.toMatch(/\son\w+="/i);
  for (const tag of body.match(/<script[^>]*>/g) ?? [])
    expect(tag).toBe('<script src="/static/app.js" defer>');
}

describe("dashboard access", () => {
  it("answers 401 on every route without a session, and with a forged cookie", async () => {
    const routes = harness.server.routes();
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      if (route.path === "/login") continue;
      for (const cookie of [undefined, "mercury_dashboard=forged"]) {
        const response = await send(harness.info.port, route.method, concrete(route.path), {
          origin: harness.origin,
          ...(cookie ? { cookie } : {}),
          ...(route.method === "POST" ? formType : {}),
        });
        expect(response.status, `${route.method} ${route.path}`).toBe(401);
      }
    }
    // An unknown path is no way around it either.
    expect((await send(harness.info.port, "GET", "/does-not-exist")).status).toBe(401);
  });

  it("a login link works once, leaves no token in the URL, the page or the logs, and sets a strict cookie", async () => {
    const { link, setCookie, cookie } = await logIn(harness);
    const token = new URL(link).searchParams.get("token") ?? "";
    expect(token.length).toBeGreaterThan(30);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\//);

    const again = await send(harness.info.port, "GET", `/login?token=${token}`);
    expect(again.status).toBe(401);
    expect(again.headers["set-cookie"]).toBeUndefined();
    expect((await send(harness.info.port, "GET", "/login?token=guessed")).status).toBe(401);

    const fresh = new URL(harness.server.loginLink());
    const login = await send(harness.info.port, "GET", `${fresh.pathname}${fresh.search}`);
    expect(login.headers.location).toBe("/");
    for (const path of ["/", "/chat", "/memory", "/tasks", "/approvals", "/usage", "/work", "/logs"]) {
      const page = await send(harness.info.port, "GET", path, { cookie });
      expect(page.status, path).toBe(200);
      expect(page.body).not.toContain(token);
      expect(page.body).not.toContain(fresh.searchParams.get("token") ?? "");
      expect(page.headers["referrer-policy"]).toBe("same-origin");
    }
    harness.app.logger.flush();
    const logs = join(harness.home, "logs");
    // The log file is created with its first line; no file means nothing, the token included, was logged.
    for (const name of existsSync(logs) ? readdirSync(logs) : [])
      expect(readFileSync(join(logs, name), "utf8")).not.toContain(token);
  });

  it("refuses a foreign Host on every request (DNS rebinding), even with a valid session", async () => {
    const { cookie } = await logIn(harness);
    for (const host of [
      "evil.example",
      `evil.example:${harness.info.port}`,
      `127.0.0.1.evil.example:${harness.info.port}`,
    ]) {
      const response = await send(harness.info.port, "GET", "/memory", { cookie, host });
      expect(response.status, host).toBe(403);
      expect(response.body).toContain("DNS-rebinding");
    }
    const link = new URL(harness.server.loginLink());
    const rebound = await send(harness.info.port, "GET", `${link.pathname}${link.search}`, {
      host: "evil.example",
    });
    expect(rebound.status).toBe(403);
    expect(rebound.headers["set-cookie"]).toBeUndefined();
    expect(
      (await send(harness.info.port, "GET", "/", { cookie, host: `localhost:${harness.info.port}` })).status,
    ).toBe(200);
  });

  it("refuses cross-site and forged state changes: foreign Origin, no Origin, no or wrong CSRF token, other body types", async () => {
    const memory = harness.app.memory;
    if (!memory) throw new Error("memory is off");
    const outcome = await memory.remember({
      userKey: "owner",
      text: "My locker code is 4711",
      kind: "fact",
      importance: "normal",
      evidence: "user-stated",
    });
    const id = memory.list({ userKey: "owner" })[0]?.id ?? 0;
    expect(outcome).toBeTruthy();
    const { cookie, csrf } = await logIn(harness);
    const forget = `/memory/${id}/forget`;
    const attempts: [Record<string, string>, string, number][] = [
      // A cross-site form post: the browser sends the attacker's Origin (and no SameSite=Strict cookie).
      [{ cookie, origin: "https://evil.example", ...formType }, form({ csrf }), 403],
      [{ cookie, origin: "null", ...formType }, form({ csrf }), 403],
      [{ cookie, ...formType }, form({ csrf }), 403],
      [{ cookie, origin: harness.origin, "sec-fetch-site": "cross-site", ...formType }, form({ csrf }), 403],
      [{ cookie, origin: harness.origin, ...formType }, form({}), 403],
      [{ cookie, origin: harness.origin, ...formType }, form({ csrf: `${csrf}x` }), 403],
      [{ cookie, origin: harness.origin, "content-type": "text/plain" }, `csrf=${csrf}`, 415],
      [{ cookie, origin: harness.origin, "content-type": "application/json" }, JSON.stringify({ csrf }), 403],
      [{ origin: harness.origin, ...formType }, form({ csrf }), 401],
    ];
    for (const [headers, body, status] of attempts) {
      const response = await send(harness.info.port, "POST", forget, headers, body);
      expect(response.status, JSON.stringify(headers)).toBe(status);
    }
    expect(memory.list({ userKey: "owner" }).map((item) => item.id)).toContain(id);
    // A GET with a foreign Origin (a cross-origin fetch of the event stream) is refused too.
    expect(
      (await send(harness.info.port, "GET", "/events", { cookie, origin: "https://evil.example" })).status,
    ).toBe(403);

    const done = await send(
      harness.info.port,
      "POST",
      forget,
      { cookie, origin: harness.origin, ...formType },
      form({ csrf }),
    );
    expect(done.status).toBe(303);
    expect(memory.list({ userKey: "owner", includeSuperseded: true }).map((item) => item.id)).not.toContain(
      id,
    );
    expect(await memory.search({ userKey: "owner", query: "locker code" })).toEqual([]);
  });

  it("renders script and javascript: payloads in a memory and a transcript as inert text", async () => {
    const memory = harness.app.memory;
    if (!memory) throw new Error("memory is off");
    await memory.remember({
      userKey: "owner",
      text: payload,
      kind: "fact",
      importance: "normal",
      evidence: "user-stated",
    });
    const id = memory.list({ userKey: "owner" })[0]?.id ?? 0;
    model.push({ text: payload });
    const { taskId } = await harness.gateway.submit({ userKey: "owner", channel: "cli", text: payload });
    await harness.gateway.idle();
    const { cookie } = await logIn(harness);
    for (const path of [
      "/memory",
      `/memory?q=${encodeURIComponent("alert")}`,
      `/memory/${id}`,
      "/tasks",
      `/tasks/${taskId}`,
      `/logs?q=${encodeURIComponent(payload)}`,
      `/memory?notice=${encodeURIComponent(payload)}`,
    ]) {
      const page = await send(harness.info.port, "GET", path, { cookie });
      expect(page.status, path).toBe(200);
      expectInert(page.body);
      const csp = String(page.headers["content-security-policy"]);
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
    }
    expect((await send(harness.info.port, "GET", `/memory/${id}`, { cookie })).body).toContain(
      "&lt;script&gt;alert",
    );
    expect((await send(harness.info.port, "GET", `/tasks/${taskId}`, { cookie })).body).toContain(
      "&lt;script&gt;alert",
    );
  });

  it("streams the owner's events over SSE only to a session", async () => {
    const { cookie } = await logIn(harness);
    const stream = await send(harness.info.port, "GET", "/events", { cookie });
    expect(stream.status).toBe(200);
    expect(stream.body).toContain("event: ready");
  });
});

describe("dashboard bind", () => {
  it("refuses a non-loopback address without TLS or --insecure-lan, saying why", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "example.com"]) {
      expect(
        () => new DashboardServer(harnessServices(), { host, port: 0, tls: null, insecureLan: false }),
        host,
      ).toThrow(DashboardBindError);
    }
    expect(
      () =>
        new DashboardServer(harnessServices(), { host: "0.0.0.0", port: 0, tls: null, insecureLan: false }),
    ).toThrow(/clear text.*--insecure-lan/s);
    for (const host of ["127.0.0.1", "localhost", "::1", "127.0.0.2"])
      expect(
        () => new DashboardServer(harnessServices(), { host, port: 0, tls: null, insecureLan: false }),
      ).not.toThrow();
    expect(
      () =>
        new DashboardServer(harnessServices(), { host: "0.0.0.0", port: 0, tls: null, insecureLan: true }),
    ).not.toThrow();
    expect(
      () =>
        new DashboardServer(harnessServices(), {
          host: "0.0.0.0",
          port: 0,
          tls: { cert: "/c.pem", key: "/k.pem" },
          insecureLan: false,
        }),
    ).not.toThrow();
  });
});

function harnessServices() {
  return {
    app: harness.app,
    gateway: harness.gateway,
    ledger: harness.ledger,
    ownerKey: "owner",
    status: () => ({}),
    logger: harness.app.logger,
    logPath: "/nonexistent",
  };
}

describe("dashboard start-up failures", () => {
  it("a port already in use is reported with the option that fixes it", async () => {
    const second = new DashboardServer(harnessServices(), {
      host: "127.0.0.1",
      port: harness.info.port,
      tls: null,
      insecureLan: false,
    });
    await expect(second.listen()).rejects.toThrow(/already in use.*--port or dashboard\.port/);
  });

  it("logging out ends the session", async () => {
    const { cookie, csrf } = await logIn(harness);
    const out = await send(
      harness.info.port,
      "POST",
      "/logout",
      { cookie, origin: harness.origin, ...formType },
      form({ csrf }),
    );
    expect(out.status).toBe(200);
    expect((await send(harness.info.port, "GET", "/", { cookie })).status).toBe(401);
  });
});
