import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import { type Harness, startHarness } from "./dashboard-harness.js";

let model: FakeOpenAIServer;
let harness: Harness | null = null;

beforeEach(async () => {
  model = await startFakeOpenAIServer({ replies: [] });
});

afterEach(async () => {
  await harness?.close();
  harness = null;
  await model.close();
});

/** A self-signed certificate for 127.0.0.1 made by openssl for this test. */
function certificate(): { cert: string; key: string } {
  const folder = mkdtempSync(join(tmpdir(), "mercury-tls-"));
  const cert = join(folder, "cert.pem");
  const key = join(folder, "key.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-keyout",
      key,
      "-out",
      cert,
      "-subj",
      "/CN=127.0.0.1",
      "-addext",
      "subjectAltName=IP:127.0.0.1",
    ],
    { stdio: "pipe" },
  );
  return { cert, key };
}

function httpsGet(
  port: number,
  path: string,
  ca: Buffer,
): Promise<{ status: number; setCookie: string; location: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, ca, servername: "127.0.0.1" }, (response) => {
      response.resume();
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          setCookie: String(response.headers["set-cookie"] ?? ""),
          location: String(response.headers.location ?? ""),
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

describe("the dashboard over TLS", () => {
  it("serves HTTPS with the configured certificate, and the session cookie is Secure", async () => {
    const tls = certificate();
    harness = await startHarness(model, { tls });
    expect(harness.info.url.startsWith("https://127.0.0.1:")).toBe(true);
    const link = new URL(harness.server.loginLink());
    expect(link.protocol).toBe("https:");
    const login = await httpsGet(harness.info.port, `${link.pathname}${link.search}`, readFileSync(tls.cert));
    expect(login.status).toBe(303);
    expect(login.location).toBe("/");
    expect(login.setCookie).toMatch(/; Secure/);
    expect(login.setCookie).toMatch(/HttpOnly/);
  });
});

describe("a TLS configuration that cannot be read", () => {
  it("names the key and the file", async () => {
    await expect(
      startHarness(model, { tls: { cert: "/nonexistent/cert.pem", key: "/nonexistent/key.pem" } }),
    ).rejects.toThrow(/cannot read dashboard\.tlsCert \(\/nonexistent\/cert\.pem\)/);
  });
});
