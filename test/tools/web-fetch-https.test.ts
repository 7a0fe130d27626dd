import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Resolver } from "../../src/permissions/network.js";
import { createWebFetchTool } from "../../src/tools/web-fetch.js";
import { expectError, expectOk, fakeContext } from "./helpers.js";

const hasOpenssl = (() => {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** A real TLS server on 127.0.0.1 whose certificate names "pinned.test" only. */
describe.skipIf(!hasOpenssl)("web_fetch over https with a pinned address", () => {
  let dir: string;
  let cert: string;
  let server: Server;
  let port: number;
  const hosts: (string | undefined)[] = [];
  const resolver: Resolver = async (name) => {
    if (name !== "pinned.test") throw new Error(`unexpected lookup ${name}`);
    return [{ address: "127.0.0.1", family: 4 }];
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mercury-tls-"));
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
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
        "-subj",
        "/CN=pinned.test",
        "-addext",
        "subjectAltName=DNS:pinned.test",
      ],
      { stdio: "ignore" },
    );
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    server = createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
      hosts.push(req.headers.host);
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<title>Secure</title><p>over TLS</p>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });

  const tool = (ca?: string) =>
    createWebFetchTool({ resolver, allowForTests: [{ address: "127.0.0.1", port }], ...(ca ? { ca } : {}) });
  const context = () => fakeContext({ cwd: "/", home: "/" });

  it("connects to the checked address and verifies the certificate for the name (SNI)", async () => {
    const output = expectOk(await tool(cert).execute({ url: `https://pinned.test:${port}/` }, context()));
    expect(output).toContain("title: Secure");
    expect(output).toContain("over TLS");
    expect(hosts.at(-1)).toBe(`pinned.test:${port}`);
  });

  it("keeps certificate verification on: an untrusted certificate is an error", async () => {
    const error = expectError(await tool().execute({ url: `https://pinned.test:${port}/` }, context()));
    expect(error).toMatch(/Could not fetch https:\/\/pinned\.test:\d+\/: .*(self-signed|self signed)/);
  });

  it("a certificate for another name is refused", async () => {
    const error = expectError(await tool(cert).execute({ url: `https://127.0.0.1:${port}/` }, context()));
    expect(error).toMatch(/Could not fetch .*(does not match|altnames)/i);
  });
});
