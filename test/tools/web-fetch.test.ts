import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Resolver } from "../../src/permissions/network.js";
import { createWebFetchTool, type WebFetchOptions } from "../../src/tools/web-fetch.js";
import { startTargetServer, type TargetServer } from "../fakes/http-target-server.js";
import { expectError, expectOk, fakeContext } from "./helpers.js";

const page = `<!doctype html><html><head><title>Mercury &amp; Friends</title>
<style>body { color: red; }</style><script>var hidden = "SCRIPT-CONTENT";</script></head>
<body><h1>Welcome</h1><p>First <b>paragraph</b> with a <a href="/docs">link</a>.</p>
<ul><li>one</li><li>two</li></ul><img src="x.png" alt="picture"></body></html>`;

let server: TargetServer;
let other: TargetServer;
let hangingResponses = 0;

beforeAll(async () => {
  other = await startTargetServer({ "/": (_req, res) => res.end("OTHER-LOOPBACK-SERVICE") });
  server = await startTargetServer({
    "/page": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(page);
    },
    "/json": (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"a":1}');
    },
    "/latin1": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain; charset=iso-8859-1" });
      res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    },
    "/hop1": (_req, res) => {
      res.writeHead(302, { location: "/hop2" });
      res.end();
    },
    "/hop2": (_req, res) => {
      res.writeHead(301, { location: "/page" });
      res.end();
    },
    "/loop": (_req, res) => {
      res.writeHead(302, { location: "/loop" });
      res.end();
    },
    "/to-metadata": (_req, res) => {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/iam" });
      res.end();
    },
    "/to-other-port": (_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${other.port}/` });
      res.end();
    },
    "/to-localhost": (_req, res) => {
      res.writeHead(302, { location: `http://localhost:${server.port}/page` });
      res.end();
    },
    "/to-file": (_req, res) => {
      res.writeHead(302, { location: "file:///etc/passwd" });
      res.end();
    },
    "/huge": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const chunk = "y".repeat(64 * 1024);
      let sent = 0;
      const push = () => {
        while (sent < 3 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", push);
            return;
          }
        }
        res.end();
      };
      push();
    },
    "/bomb": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      res.end(gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x61)));
    },
    "/long": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(Array.from({ length: 2000 }, (_, i) => `row ${i}`).join("\n"));
    },
    "/hang": () => {
      hangingResponses++;
    },
    "/binary": (_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    },
    "/missing": (_req, res) => {
      res.writeHead(404, { "content-type": "text/html" });
      res.end("<h1>Not here</h1>");
    },
  });
});

afterAll(async () => {
  await server.close();
  await other.close();
});

const context = () => fakeContext({ cwd: "/", home: "/" });
/** Only the exact test server address and port are let through; everything else stays refused. */
const tool = (extra: WebFetchOptions = {}) =>
  createWebFetchTool({ allowForTests: [{ address: "127.0.0.1", port: server.port }], ...extra });

describe("web_fetch", () => {
  it("converts HTML to readable text with title, url and status", async () => {
    const output = expectOk(await tool().execute({ url: server.url("/page") }, context()));
    expect(output).toContain(`url: ${server.url("/page")}`);
    expect(output).toContain("status: 200 OK");
    expect(output).toContain("title: Mercury & Friends");
    expect(output).toContain("content-type: text/html");
    expect(output).toContain("WELCOME");
    expect(output).toContain("First paragraph with a link [/docs].");
    expect(output).toMatch(/\* one\n\s*\* two/);
    expect(output).not.toContain("SCRIPT-CONTENT");
    expect(output).not.toContain("color: red");
    expect(output).not.toContain("<p>");
  });

  it("asks permission for each hop and follows redirects, showing where it came from", async () => {
    const ctx = context();
    const output = expectOk(await tool().execute({ url: server.url("/hop1") }, ctx));
    expect(output).toContain(`url: ${server.url("/page")}`);
    expect(output).toContain(`redirected from: ${server.url("/hop1")} -> ${server.url("/hop2")}`);
    expect(ctx.requests).toEqual([
      { kind: "network", url: server.url("/hop1") },
      { kind: "network", url: server.url("/hop2"), redirectFrom: server.url("/hop1") },
      { kind: "network", url: server.url("/page"), redirectFrom: server.url("/hop2") },
    ]);
  });

  it("refuses a redirect to the metadata address", async () => {
    const error = expectError(await tool().execute({ url: server.url("/to-metadata") }, context()));
    expect(error).toMatch(/Refused to connect to 169\.254\.169\.254: .*link-local/);
    expect(error).toContain("[rule: ssrf-private-address]");
  });

  it("refuses a redirect to another loopback port, which never sees a request", async () => {
    const error = expectError(await tool().execute({ url: server.url("/to-other-port") }, context()));
    expect(error).toMatch(/Refused to connect to 127\.0\.0\.1: .*loopback/);
    expect(other.requests).toHaveLength(0);
  });

  it("refuses redirects to localhost by name and to non-http schemes", async () => {
    expect(expectError(await tool().execute({ url: server.url("/to-localhost") }, context()))).toContain(
      "[rule: ssrf-blocked-name]",
    );
    expect(expectError(await tool().execute({ url: server.url("/to-file") }, context()))).toMatch(
      /Only http and https URLs can be fetched, not file:/,
    );
  });

  it("stops after the redirect limit", async () => {
    const error = expectError(
      await tool({ maxRedirects: 3 }).execute({ url: server.url("/loop") }, context()),
    );
    expect(error).toMatch(/Too many redirects \(more than 3\)/);
  });

  it("connects to the address it checked (pinned), not whatever DNS says later", async () => {
    let lookups = 0;
    const resolver: Resolver = async (name) => {
      lookups++;
      if (name !== "pinned.test") throw new Error(`unexpected lookup ${name}`);
      // A rebinding server would answer differently the second time; the fetch must not ask twice.
      return lookups === 1 ? [{ address: "127.0.0.1", family: 4 }] : [{ address: "10.0.0.1", family: 4 }];
    };
    const before = server.requests.length;
    const output = expectOk(
      await tool({ resolver }).execute({ url: `http://pinned.test:${server.port}/json` }, context()),
    );
    expect(output).toContain('{"a":1}');
    expect(lookups).toBe(1);
    expect(server.requests.slice(before)).toEqual([{ path: "/json", host: `pinned.test:${server.port}` }]);
  });

  it("stops downloading at the size cap and says the end is missing", async () => {
    const output = expectOk(
      await tool({ maxBytes: 100_000, maxChars: 200_000 }).execute({ url: server.url("/huge") }, context()),
    );
    expect(output).toMatch(/download stopped at the 100000-byte limit/);
    expect(output).toContain("text: characters 0-100000 of 100000");
  });

  it("caps a decompression bomb at the same limit", async () => {
    const output = expectOk(
      await tool({ maxBytes: 50_000 }).execute({ url: server.url("/bomb") }, context()),
    );
    expect(output).toMatch(/download stopped at the 50000-byte limit/);
  });

  it("keeps head and tail of long text and lets the model page with offset", async () => {
    const first = expectOk(await tool({ maxChars: 1000 }).execute({ url: server.url("/long") }, context()));
    expect(first).toContain("row 0\n");
    expect(first).toContain("row 1999");
    const offset = Number(/Use web_fetch with offset=(\d+)/.exec(first)?.[1]);
    expect(offset).toBeGreaterThan(0);
    const lastShownHead = first.slice(0, first.indexOf("[...")).trim().split("\n").at(-1);
    const next = expectOk(
      await tool({ maxChars: 1000 }).execute({ url: server.url("/long"), offset }, context()),
    );
    const body = next.slice(next.indexOf("\n\n") + 2);
    const firstRow = body.split("\n")[0];
    expect(Number(firstRow?.split(" ")[1])).toBe(Number(lastShownHead?.split(" ")[1]) + 1);
    expect(
      expectError(await tool().execute({ url: server.url("/long"), offset: 10_000_000 }, context())),
    ).toMatch(/offset 10000000 is past the end/);
  });

  it("times out a server that never answers", async () => {
    const error = expectError(
      await tool({ timeoutMs: 300 }).execute({ url: server.url("/hang") }, context()),
    );
    expect(error).toMatch(/Timed out: .* did not answer within 300 ms/);
    expect(hangingResponses).toBeGreaterThan(0);
  });

  it("times out a DNS lookup that never returns", async () => {
    const stuck: Resolver = () => new Promise(() => {});
    const started = Date.now();
    const error = expectError(
      await tool({ resolver: stuck, timeoutMs: 200 }).execute({ url: "http://slow-dns.example/" }, context()),
    );
    expect(error).toMatch(/Timed out: http:\/\/slow-dns\.example\/ did not answer within 200 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("stops when the task is aborted", async () => {
    const ctx = context();
    setTimeout(() => ctx.controller.abort(), 100);
    const error = expectError(await tool().execute({ url: server.url("/hang") }, ctx));
    expect(error).toMatch(/^Cancelled/);
  });

  it("returns JSON as is and decodes a declared charset", async () => {
    expect(expectOk(await tool().execute({ url: server.url("/json") }, context()))).toMatch(/\n\n\{"a":1\}$/);
    expect(expectOk(await tool().execute({ url: server.url("/latin1") }, context()))).toMatch(/\n\ncafé$/);
  });

  it("refuses binary content, reports HTTP errors, bad schemes, bad URLs, credentials and denial", async () => {
    expect(expectError(await tool().execute({ url: server.url("/binary") }, context()))).toMatch(
      /image\/png, not text/,
    );
    const missing = expectError(await tool().execute({ url: server.url("/missing") }, context()));
    expect(missing).toMatch(/^HTTP 404 Not Found from /);
    expect(missing).toContain("NOT HERE");
    expect(expectError(await tool().execute({ url: "file:///etc/passwd" }, context()))).toMatch(
      /Only http and https/,
    );
    expect(expectError(await tool().execute({ url: "not a url" }, context()))).toMatch(/is not a valid URL/);
    expect(
      expectError(await tool().execute({ url: `http://u:p@127.0.0.1:${server.port}/page` }, context())),
    ).toMatch(/user name or password/);
    const denied = fakeContext({ cwd: "/", home: "/" }, "deny");
    expect(expectError(await tool().execute({ url: server.url("/page") }, denied))).toMatch(
      /Permission denied: fetching .* was refused \(test-deny\)/,
    );
  });

  it("with default options refuses even the test server", async () => {
    const error = expectError(await createWebFetchTool().execute({ url: server.url("/page") }, context()));
    expect(error).toContain("[rule: ssrf-private-address]");
  });
});
