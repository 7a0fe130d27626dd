import { existsSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type DaemonHome, daemonHome } from "../daemon/daemon-helpers.js";
import { send } from "../dashboard/dashboard-harness.js";
import { fastRetryConfig, runCli } from "../helpers/cli.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";

/**
 * Session 10: the dashboard of the built daemon, attacked with a plain HTTP client the way a hostile
 * page (or a rebinding DNS name, or another local port) would reach it.
 */
const fixture = useDaemonFixture();
const payload = (tag: string) => `<img src=x onerror=alert('${tag}')>`;
const escaped = (tag: string) => `&lt;img src=x onerror=alert(&#39;${tag}&#39;)&gt;`;

/** Bytes exactly as written (no client fills in Host); the whole answer, once the server closes. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port }, () => socket.end(text));
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
  });
}

async function startDashboard(daemon: DaemonHome) {
  const started = await daemon.cli(["dashboard", "--port", "0", "--no-open", "--json"]);
  expect(started.code, started.stderr).toBe(0);
  const info = JSON.parse(started.stdout) as { loginUrl: string; host: string };
  const login = new URL(info.loginUrl);
  const port = Number(login.port);
  const exchanged = await send(port, "GET", `${login.pathname}${login.search}`);
  expect(exchanged.status).toBe(303);
  const cookie = String(exchanged.headers["set-cookie"] ?? "").split(";")[0] ?? "";
  const home = await send(port, "GET", "/", { cookie });
  const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(home.body)?.[1] ?? "";
  expect(csrf).not.toBe("");
  return { port, cookie, csrf, host: info.host, token: login.searchParams.get("token") ?? "" };
}

/** Hostile text everywhere the dashboard shows data: a memory, a task's input, a file name, tool output. */
async function hostileState(daemon: DaemonHome): Promise<{ memoryId: number }> {
  writeFileSync(join(daemon.home, "config.yaml"), fastRetryConfig);
  const added = await daemon.cli(["memory", "add", `${payload("memory")} likes tea`, "--json"]);
  expect(added.code, added.stderr).toBe(0);
  const memoryId = (JSON.parse(added.stdout) as { memory: { id: number } }).memory.id;
  fixture.server.push(
    {
      toolCalls: [
        { name: "write_file", input: { path: `${payload("file")}.txt`, content: payload("output") } },
      ],
    },
    { toolCalls: [{ name: "read_file", input: { path: `${payload("file")}.txt` } }] },
    { text: `Done ${payload("answer")}` },
  );
  const run = await runCli(["run", `${payload("title")} make a file`, "--json", "--cwd", daemon.workspace], {
    home: daemon.home,
    userHome: daemon.userHome,
    env: daemon.env,
  });
  expect(run.code, run.stderr).toBe(0);
  expect(existsSync(join(daemon.workspace, `${payload("file")}.txt`))).toBe(true);
  return { memoryId };
}

describe("the dashboard of the built daemon, attacked over HTTP (session 10)", () => {
  it("listens on loopback only, needs the session on every route, refuses rebinding and foreign origins", async () => {
    const daemon = daemonHome(fixture.server.url);
    fixture.current = daemon;
    const { memoryId } = await hostileState(daemon);
    const session = await startDashboard(daemon);
    expect(session.host).toBe("127.0.0.1");

    // Not reachable on this machine's other addresses.
    const others = Object.values(networkInterfaces())
      .flat()
      .flatMap((entry) => (entry && !entry.internal && entry.family === "IPv4" ? [entry.address] : []));
    for (const address of others) {
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect({ host: address, port: session.port }, () => {
          socket.destroy();
          resolve("connected");
        });
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      });
      expect(outcome, address).toBe("ECONNREFUSED");
    }

    const routes = [
      "/",
      "/memory",
      `/memory/${memoryId}`,
      "/memory-conflicts",
      "/memory-export",
      "/tasks",
      "/approvals",
      "/usage",
      "/work",
      "/logs",
      "/chat",
      "/events",
      "/static/app.js",
      "/static/app.css",
    ];
    for (const route of routes) {
      const anonymous = await send(session.port, "GET", route);
      expect(anonymous.status, route).toBe(401);
      expect(anonymous.body).not.toContain("likes tea");
      const forged = await send(session.port, "GET", route, { cookie: "mercury_dashboard=forged" });
      expect(forged.status, route).toBe(401);
      // A rebinding name pointed at 127.0.0.1 carries its own Host, even with the victim's cookie.
      for (const host of [
        "evil.example",
        `evil.example:${session.port}`,
        `127.0.0.1.evil.example:${session.port}`,
        `127.0.0.1:${session.port + 1}`,
      ]) {
        const rebound = await send(session.port, "GET", route, { host, cookie: session.cookie });
        expect(rebound.status, `${route} Host ${host}`).toBe(403);
        expect(rebound.body).not.toContain("likes tea");
      }
      const foreign = await send(session.port, "GET", route, {
        cookie: session.cookie,
        origin: "http://evil.example",
      });
      expect(foreign.status, route).toBe(403);
      const framed = await send(session.port, "GET", route === "/events" ? "/" : route, {
        cookie: session.cookie,
      });
      expect(framed.headers["x-frame-options"], route).toBe("DENY");
      expect(String(framed.headers["content-security-policy"])).toContain("frame-ancestors 'none'");
      expect(framed.headers["x-content-type-options"]).toBe("nosniff");
    }

    // No Host, an empty one, HTTP/1.0 or a backslash path: refused at once, never a hung connection.
    for (const head of [
      `GET / HTTP/1.1\r\nHost: \r\nCookie: ${session.cookie}\r\n`,
      `GET / HTTP/1.0\r\nCookie: ${session.cookie}\r\n`,
      `GET / HTTP/1.1\r\nCookie: ${session.cookie}\r\n`,
      `GET /static\\..\\..\\package.json HTTP/1.1\r\nHost: 127.0.0.1:${session.port}\r\nCookie: ${session.cookie}\r\n`,
    ]) {
      const answer = await rawRequest(session.port, `${head}Connection: close\r\n\r\n`);
      expect(answer.split("\r\n")[0], head).toBe("HTTP/1.1 400 Bad Request");
      expect(answer).not.toContain("likes tea");
    }

    // Path traversal in the static route: only the two named assets exist.
    for (const path of [
      "/static/..%2f..%2fpackage.json",
      "/static/%2e%2e/%2e%2e/package.json",
      "/static/..%5c..%5cpackage.json",
      "/static/../../package.json",
      "/static/app.js%00.css",
    ]) {
      const result = await send(session.port, "GET", path, { cookie: session.cookie });
      expect(result.status, path).toBe(404);
      expect(result.body).not.toContain('"name": "mercury');
    }
    // The login token was used once and never works again.
    expect((await send(session.port, "GET", `/login?token=${session.token}`)).status).toBe(401);
    await daemon.cli(["stop"]);
  });

  it("forget and resolve happen only with the session, our Origin and the anti-CSRF token", async () => {
    const daemon = daemonHome(fixture.server.url);
    fixture.current = daemon;
    const { memoryId } = await hostileState(daemon);
    const session = await startDashboard(daemon);
    const origin = `http://127.0.0.1:${session.port}`;
    const form = "application/x-www-form-urlencoded";
    const attempts: { what: string; headers: Record<string, string>; body: string; status: number }[] = [
      {
        what: "no session",
        headers: { origin, "content-type": form },
        body: `csrf=${session.csrf}`,
        status: 401,
      },
      {
        what: "a page on another site",
        headers: { cookie: session.cookie, origin: "http://evil.example", "content-type": form },
        body: `csrf=${session.csrf}`,
        status: 403,
      },
      {
        what: "another local port (same site, other origin)",
        headers: {
          cookie: session.cookie,
          origin: `http://127.0.0.1:${session.port + 1}`,
          "sec-fetch-site": "same-site",
          "content-type": form,
        },
        body: `csrf=${session.csrf}`,
        status: 403,
      },
      {
        what: "Origin: null (a sandboxed frame or a data: page)",
        headers: { cookie: session.cookie, origin: "null", "content-type": form },
        body: `csrf=${session.csrf}`,
        status: 403,
      },
      {
        what: "no Origin",
        headers: { cookie: session.cookie, "content-type": form },
        body: `csrf=${session.csrf}`,
        status: 403,
      },
      {
        what: "our Origin but no token",
        headers: { cookie: session.cookie, origin, "content-type": form },
        body: "",
        status: 403,
      },
      {
        what: "our Origin, a wrong token",
        headers: { cookie: session.cookie, origin, "content-type": form },
        body: `csrf=${"0".repeat(session.csrf.length)}`,
        status: 403,
      },
      {
        what: "a text/plain body (a form a page can send without preflight)",
        headers: { cookie: session.cookie, origin, "content-type": "text/plain" },
        body: `csrf=${session.csrf}`,
        status: 415,
      },
    ];
    for (const action of [`/memory/${memoryId}/forget`, `/memory/${memoryId}/resolve`]) {
      for (const attempt of attempts) {
        const result = await send(session.port, "POST", action, attempt.headers, attempt.body);
        expect(result.status, `${action}: ${attempt.what}`).toBe(attempt.status);
      }
    }
    const still = await daemon.cli(["memory", "show", String(memoryId), "--json"]);
    expect(still.code, still.stderr).toBe(0);
    expect(still.stdout).toContain("likes tea");

    // With everything right, forget works: the guard refuses attackers, not the owner.
    const forget = await send(
      session.port,
      "POST",
      `/memory/${memoryId}/forget`,
      { cookie: session.cookie, origin, "content-type": form },
      `csrf=${session.csrf}`,
    );
    expect(forget.status).toBeLessThan(400);
    const gone = await daemon.cli(["memory", "show", String(memoryId), "--json"]);
    expect(gone.stdout).not.toContain("likes tea");
    await daemon.cli(["stop"]);
  });

  it("hostile text in a memory, a task title, a file name, tool output and the answer is shown escaped", async () => {
    const daemon = daemonHome(fixture.server.url);
    fixture.current = daemon;
    const { memoryId } = await hostileState(daemon);
    const session = await startDashboard(daemon);
    const tasks = await send(session.port, "GET", "/tasks", { cookie: session.cookie });
    expect(tasks.status).toBe(200);
    const taskPath = /href="(\/tasks\/[^"]+)"/.exec(tasks.body)?.[1] ?? "";
    expect(taskPath).not.toBe("");
    const pages = {
      memory: await send(session.port, "GET", "/memory", { cookie: session.cookie }),
      memoryDetail: await send(session.port, "GET", `/memory/${memoryId}`, { cookie: session.cookie }),
      tasks,
      task: await send(session.port, "GET", taskPath, { cookie: session.cookie }),
      logs: await send(session.port, "GET", "/logs", { cookie: session.cookie }),
      status: await send(session.port, "GET", "/", { cookie: session.cookie }),
    };
    const everything = Object.values(pages)
      .map((page) => page.body)
      .join("\n");
    for (const [name, page] of Object.entries(pages)) {
      expect(page.status, name).toBe(200);
      expect(page.body, name).not.toMatch(/<img[\s/]/i);
      expect(page.body, name).not.toMatch(/<script(?![^>]*src="\/static\/app\.js")/i);
      expect(page.body, name).not.toMatch(/<[a-z][^>]*\son\w+=/i);
    }
    expect(pages.memory.body).toContain(escaped("memory"));
    expect(pages.tasks.body).toContain(escaped("title"));
    for (const tag of ["title", "file", "output", "answer"])
      expect(pages.task.body, tag).toContain(escaped(tag));
    expect(everything).not.toContain(payload("memory"));
    await daemon.cli(["stop"]);
  });
});
