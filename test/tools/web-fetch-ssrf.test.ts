import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  assertPublicAddress,
  classifyHost,
  NetworkRefusal,
  parseNumericIPv4,
  type Resolver,
  resolvePublicAddress,
} from "../../src/permissions/network.js";
import { createWebFetchTool } from "../../src/tools/web-fetch.js";
import { startTargetServer, type TargetServer } from "../fakes/http-target-server.js";
import { expectError, fakeContext } from "./helpers.js";

/** DNS answers for made-up names; anything else is a test bug, never a real lookup. */
const fakeDns: Record<string, string[]> = {
  "rebind.example": ["127.0.0.1"],
  "mixed.example": ["93.184.216.34", "127.0.0.1"],
  "private10.example": ["10.0.0.5"],
  "ula.example": ["fd00::1"],
  "mapped.example": ["::ffff:127.0.0.1"],
  "meta.example": ["169.254.169.254"],
  "cgnat.example": ["100.64.1.1"],
  "public.example": ["93.184.216.34"],
  "public6.example": ["2606:4700:4700::1111"],
};
const resolver: Resolver = async (name) => {
  const answers = fakeDns[name];
  if (!answers) throw new Error(`test resolver has no answer for ${name}`);
  return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

type Rule = "ssrf-private-address" | "ssrf-blocked-name";

/** Forms that all land on 127.0.0.1 (or this host): the tool must refuse them and the server must see nothing. */
const loopbackForms: [string, Rule][] = [
  ["http://127.0.0.1:PORT/", "ssrf-private-address"],
  ["http://localhost:PORT/", "ssrf-blocked-name"],
  ["http://LOCALHOST:PORT/", "ssrf-blocked-name"],
  ["http://app.localhost:PORT/", "ssrf-blocked-name"],
  ["http://2130706433:PORT/", "ssrf-private-address"],
  ["http://0177.0.0.1:PORT/", "ssrf-private-address"],
  ["http://0x7f.1:PORT/", "ssrf-private-address"],
  ["http://127.1:PORT/", "ssrf-private-address"],
  ["http://0x7f000001:PORT/", "ssrf-private-address"],
  ["http://017700000001:PORT/", "ssrf-private-address"],
  ["http://127.000.000.001:PORT/", "ssrf-private-address"],
  ["http://0x7f.0x0.0x0.0x1:PORT/", "ssrf-private-address"],
  ["http://127.0.0.1.:PORT/", "ssrf-private-address"],
  ["http://%31%32%37.0.0.1:PORT/", "ssrf-private-address"],
  ["http://１２７.０.０.１:PORT/", "ssrf-private-address"],
  ["http://127.127.127.127:PORT/", "ssrf-private-address"],
  ["http://0.0.0.0:PORT/", "ssrf-private-address"],
  ["http://0:PORT/", "ssrf-private-address"],
  ["http://[::1]:PORT/", "ssrf-private-address"],
  ["http://[::]:PORT/", "ssrf-private-address"],
  ["http://[::ffff:127.0.0.1]:PORT/", "ssrf-private-address"],
  ["http://[::ffff:7f00:1]:PORT/", "ssrf-private-address"],
  ["http://[0:0:0:0:0:ffff:127.0.0.1]:PORT/", "ssrf-private-address"],
  ["http://[::127.0.0.1]:PORT/", "ssrf-private-address"],
  ["http://[64:ff9b::127.0.0.1]:PORT/", "ssrf-private-address"],
  ["http://[2002:7f00:1::1]:PORT/", "ssrf-private-address"],
  ["http://[::ffff:0:7f00:1]:PORT/", "ssrf-private-address"],
  ["http://rebind.example:PORT/", "ssrf-private-address"],
  ["http://mixed.example:PORT/", "ssrf-private-address"],
  ["http://mapped.example:PORT/", "ssrf-private-address"],
  ["https://127.0.0.1:PORT/", "ssrf-private-address"],
];

/** Private, link-local, metadata and special addresses elsewhere: checked by the guard, which never connects. */
const otherForms: [string, Rule][] = [
  ["http://169.254.169.254/latest/meta-data/", "ssrf-private-address"],
  ["http://2852039166/", "ssrf-private-address"],
  ["http://0xa9.0xfe.0xa9.0xfe/", "ssrf-private-address"],
  ["http://0251.0376.0251.0376/", "ssrf-private-address"],
  ["http://169.254.43518/", "ssrf-private-address"],
  ["http://[fd00:ec2::254]/", "ssrf-private-address"],
  ["http://[::ffff:169.254.169.254]/", "ssrf-private-address"],
  ["http://[::ffff:a9fe:a9fe]/", "ssrf-private-address"],
  ["http://[64:ff9b::a9fe:a9fe]/", "ssrf-private-address"],
  ["http://[2002:a9fe:a9fe::1]/", "ssrf-private-address"],
  ["http://metadata.google.internal/computeMetadata/v1/", "ssrf-blocked-name"],
  ["http://metadata.goog/", "ssrf-blocked-name"],
  ["http://metadata/", "ssrf-blocked-name"],
  ["http://instance-data/", "ssrf-blocked-name"],
  ["http://100.100.100.200/", "ssrf-private-address"],
  ["http://192.0.0.192/", "ssrf-private-address"],
  ["http://10.0.0.1/", "ssrf-private-address"],
  ["http://10.1/", "ssrf-private-address"],
  ["http://167772161/", "ssrf-private-address"],
  ["http://172.16.0.1/", "ssrf-private-address"],
  ["http://172.31.255.255/", "ssrf-private-address"],
  ["http://192.168.1.1/", "ssrf-private-address"],
  ["http://0xc0.0xa8.1.1/", "ssrf-private-address"],
  ["http://100.64.0.1/", "ssrf-private-address"],
  ["http://224.0.0.1/", "ssrf-private-address"],
  ["http://239.255.255.250/", "ssrf-private-address"],
  ["http://255.255.255.255/", "ssrf-private-address"],
  ["http://240.0.0.1/", "ssrf-private-address"],
  ["http://198.18.0.1/", "ssrf-private-address"],
  ["http://[fe80::1]/", "ssrf-private-address"],
  ["http://[fc00::1]/", "ssrf-private-address"],
  ["http://[fd12:3456::1]/", "ssrf-private-address"],
  ["http://[ff02::1]/", "ssrf-private-address"],
  ["http://[fec0::1]/", "ssrf-private-address"],
  ["http://[100::1]/", "ssrf-private-address"],
  ["http://[2001:db8::1]/", "ssrf-private-address"],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "ssrf-private-address"],
  ["http://[::ffff:10.0.0.1]/", "ssrf-private-address"],
  ["http://printer.local/", "ssrf-blocked-name"],
  ["http://router.home.arpa/", "ssrf-blocked-name"],
  ["http://db.corp.internal/", "ssrf-blocked-name"],
  ["http://private10.example/", "ssrf-private-address"],
  ["http://ula.example/", "ssrf-private-address"],
  ["http://meta.example/", "ssrf-private-address"],
  ["http://cgnat.example/", "ssrf-private-address"],
];

async function guardRule(url: string): Promise<string> {
  try {
    await resolvePublicAddress(new URL(url).hostname, { resolver });
  } catch (error) {
    if (error instanceof NetworkRefusal) return error.rule;
    throw error;
  }
  return "allowed";
}

describe("SSRF guard: table of refused forms", () => {
  let server: TargetServer;
  beforeAll(async () => {
    server = await startTargetServer({ "/": (_req, res) => res.end("SECRET-INTERNAL") });
  });
  afterAll(async () => {
    await server.close();
  });

  it("has at least 70 forms (the brief asks for 40)", () => {
    expect(loopbackForms.length + otherForms.length).toBeGreaterThanOrEqual(70);
  });

  it.each(loopbackForms)("web_fetch refuses %s (%s) and never connects", async (template, rule) => {
    const tool = createWebFetchTool({ resolver });
    const url = template.replace("PORT", String(server.port));
    const before = server.requests.length;
    const error = expectError(await tool.execute({ url }, fakeContext({ cwd: "/", home: "/" })));
    expect(error).toMatch(/^Refused to connect/);
    expect(error).toContain(`[rule: ${rule}]`);
    expect(error).not.toContain("SECRET-INTERNAL");
    expect(server.requests.length).toBe(before);
  });

  it.each(otherForms)("the guard refuses %s (%s)", async (url, rule) => {
    expect(await guardRule(url)).toBe(rule);
  });

  it.each([
    "http://93.184.216.34/",
    "http://8.8.8.8/",
    "http://134744072/",
    "http://[2606:4700:4700::1111]/",
    "http://[::ffff:8.8.8.8]/",
    "http://[64:ff9b::808:808]/",
    "http://public.example/",
    "http://public6.example/",
  ])("the guard allows the public address %s", async (url) => {
    expect(await guardRule(url)).toBe("allowed");
  });
});

describe("numeric host forms (raw, as a non-URL caller might pass them)", () => {
  it.each([
    ["2130706433", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["127.1", "127.0.0.1"],
    ["0x7F.0.0.1", "127.0.0.1"],
    ["10.1", "10.0.0.1"],
    ["169.254.43518", "169.254.169.254"],
    ["0", "0.0.0.0"],
    ["1.2.3.4.", "1.2.3.4"],
  ])("%s is %s", (host, dotted) => {
    expect(parseNumericIPv4(host)).toBe(dotted);
    const cls = classifyHost(host);
    expect(cls.kind).toBe("ip");
  });

  it.each(["example.com", "1.2.3.4.5", "256.1.1.1", "4294967296", "08.1.1.1", "0xg", "1..2", "a.1"])(
    "%s is not a numeric IPv4 address",
    (host) => {
      expect(parseNumericIPv4(host)).toBeNull();
    },
  );

  it("classifies raw hosts the way URLs do", () => {
    expect(classifyHost("0177.0.0.1")).toMatchObject({
      kind: "ip",
      address: "127.0.0.1",
      verdict: { public: false },
    });
    expect(classifyHost("[::1]")).toMatchObject({ kind: "ip", verdict: { public: false } });
    expect(classifyHost("fe80::1%eth0")).toMatchObject({ kind: "ip", verdict: { public: false } });
    expect(classifyHost("Example.COM.")).toEqual({ kind: "name", name: "example.com" });
    expect(classifyHost("")).toMatchObject({ kind: "name", blockedReason: "the host is empty" });
  });

  it("assertPublicAddress throws a NetworkRefusal with the reason", () => {
    expect(() => assertPublicAddress("169.254.169.254")).toThrow(
      /link-local \(includes the 169\.254\.169\.254 metadata/,
    );
    expect(() => assertPublicAddress("fd00:ec2::254")).toThrow(/unique-local/);
    expect(() => assertPublicAddress("::ffff:127.0.0.1")).toThrow(/IPv4-mapped form of 127\.0\.0\.1/);
    expect(() => assertPublicAddress("not-an-ip")).toThrow(/not a valid IP address/);
    expect(() => assertPublicAddress("8.8.8.8")).not.toThrow();
  });
});
