import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import { type Harness, type HttpResult, logIn, send, startHarness } from "./dashboard-harness.js";

let model: FakeOpenAIServer;
let harness: Harness;

beforeAll(async () => {
  model = await startFakeOpenAIServer({ replies: [] });
  harness = await startHarness(model);
});

afterAll(async () => {
  await harness.close();
  await model.close();
});

/** Parameter values a hostile page or a confused script might put in a path. */
const hostileParameters = ["99999999999999999999999", "%E0%A4%A", "..%2F..%2Fetc"];

function expectClearRefusalOrPage(result: HttpResult, what: string): void {
  // Never a server error, never an empty refusal: every failure says what was wrong.
  expect(result.status, `${what}: ${result.body.slice(0, 200)}`).toBeLessThan(500);
  if (result.status >= 400) expect(result.body.trim().length, what).toBeGreaterThan(5);
  expect(result.headers["x-frame-options"], what).toBe("DENY");
  expect(String(result.headers["content-security-policy"]), what).toContain("frame-ancestors 'none'");
}

describe("the dashboard under hostile input (session 11)", () => {
  it("every route answers odd parameters, broken bodies and odd queries with a page or a clear 4xx", async () => {
    const { cookie, csrf } = await logIn(harness);
    const port = harness.info.port;
    const origin = harness.origin;
    const routes = harness.server.routes();
    expect(routes.length).toBeGreaterThan(5);
    for (const route of routes) {
      for (const value of hostileParameters) {
        const path = route.path.replace(/:[a-z]+/gi, value);
        if (route.method === "GET") {
          if (route.path === "/events" || route.path === "/login") continue;
          for (const query of ["?user=%FF&status=%00&format=md&level=x&q[]=1&notice=%3Cscript%3E"]) {
            const result = await send(port, "GET", `${path}${query}`, { cookie });
            expectClearRefusalOrPage(result, `GET ${path}${query}`);
          }
          continue;
        }
        if (route.path === "/logout") continue;
        const bodies: [string, string][] = [
          ["application/json", "{"],
          ["application/json", "[1,2,3]"],
          ["application/json", JSON.stringify({ text: 7, decision: ["always"], csrf })],
          ["application/x-www-form-urlencoded", `csrf=${csrf}&decision=always&decision=deny&text=`],
          ["application/x-www-form-urlencoded", `csrf=${csrf}&%ZZ=1`],
        ];
        for (const [type, body] of bodies) {
          const result = await send(
            port,
            route.method,
            path,
            { cookie, origin, "content-type": type, "x-csrf-token": csrf },
            body,
          );
          expectClearRefusalOrPage(result, `${route.method} ${path} ${type} ${body}`);
        }
      }
    }
  });

  it("look-alike Hosts and Origins are refused with the reason, before any route runs", async () => {
    const { cookie, csrf } = await logIn(harness);
    const port = harness.info.port;
    for (const host of [
      `127.0.0.1.evil.example:${port}`,
      `localhost.:${port}`,
      `127.0.0.1:${port}.evil.example`,
      `127.0.0.1:${port + 1}`,
      `evil.example`,
      `127.0.0.1:${port}@evil.example`,
    ]) {
      const result = await send(port, "GET", "/", { host, cookie });
      // 403 from the Host check, or 400 from the HTTP adapter for a Host it cannot parse.
      expect([400, 403], host).toContain(result.status);
      expect(result.body).toMatch(/^refused: /);
    }
    for (const origin of [
      "null",
      `http://127.0.0.1:${port}.evil.example`,
      `https://127.0.0.1:${port}`,
      "http://localhost",
    ]) {
      const result = await send(
        port,
        "POST",
        "/logout",
        { cookie, origin, "content-type": "application/x-www-form-urlencoded", "x-csrf-token": csrf },
        `csrf=${csrf}`,
      );
      expect(result.status, origin).toBe(403);
      expect(result.body).toContain("another origin");
    }
  });
});
