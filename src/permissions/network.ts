import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/**
 * The SSRF guard for web_fetch: which hosts and addresses may be contacted. Only globally routable
 * unicast addresses pass; everything that can reach this machine, its LAN or a cloud metadata service
 * is refused, whatever spelling the URL used.
 */

export class NetworkRefusal extends Error {
  constructor(
    message: string,
    readonly rule: string,
  ) {
    super(message);
    this.name = "NetworkRefusal";
  }
}

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = async (hostname) => lookup(hostname, { all: true, verbatim: true });

export type AddressVerdict =
  | { public: true; address: string }
  | { public: false; address: string; reason: string };

export type HostClass =
  | { kind: "ip"; address: string; verdict: AddressVerdict }
  | { kind: "name"; name: string; blockedReason?: string };

/** Names refused before any DNS lookup: metadata services and names that only mean "this network". */
const BLOCKED_NAMES = new Set([
  "localhost",
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "instance-data",
  "instance-data.ec2.internal",
]);
const BLOCKED_SUFFIXES = [".localhost", ".internal", ".local", ".home.arpa", ".lan"];

/**
 * Parses the numeric IPv4 spellings that URL parsers and inet_aton accept: 1 to 4 parts, each decimal,
 * octal (leading 0) or hex (0x), the last part filling the remaining bytes ("127.1", "2130706433",
 * "0177.0.0.1", "0x7f.1"). Returns the dotted-quad form, or null when the host is not numeric.
 */
export function parseNumericIPv4(host: string): string | null {
  let parts = host.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts = parts.slice(0, -1);
  if (parts.length === 0 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    const value = parseIPv4Part(part);
    if (value === null) return null;
    values.push(value);
  }
  const last = values.pop() as number;
  if (values.some((v) => v > 255)) return null;
  if (last >= 256 ** (4 - values.length)) return null;
  let number = last;
  values.forEach((v, i) => {
    number += v * 256 ** (3 - i);
  });
  return [24, 16, 8, 0].map((shift) => Math.floor(number / 2 ** shift) % 256).join(".");
}

function parseIPv4Part(part: string): number | null {
  if (part === "") return null;
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return null;
}

/** Decides whether one concrete address is publicly routable. */
export function classifyAddress(raw: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(raw);
  } catch (error) {
    return { public: false, address: raw, reason: `not a valid IP address (${String(error)})` };
  }
  const address = parsed.toString();
  if (parsed.kind() === "ipv4") return classifyIPv4(parsed as ipaddr.IPv4, address);
  return classifyIPv6(parsed as ipaddr.IPv6, address);
}

function classifyIPv4(ip: ipaddr.IPv4, address: string): AddressVerdict {
  const range = ip.range();
  if (range === "unicast") return { public: true, address };
  const why = range === "linkLocal" ? "link-local (includes the 169.254.169.254 metadata service)" : range;
  return { public: false, address, reason: `${address} is a ${why} address` };
}

function classifyIPv6(ip: ipaddr.IPv6, address: string): AddressVerdict {
  const parts = ip.parts;
  const embedded = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const refuse = (reason: string): AddressVerdict => ({
    public: false,
    address,
    reason: `${address} ${reason}`,
  });
  const viaEmbedded = (v4: string, what: string): AddressVerdict => {
    const inner = classifyAddress(v4);
    return inner.public ? { public: true, address } : refuse(`is ${what} of ${v4}, which is not public`);
  };
  const range = ip.range();
  if (range === "ipv4Mapped") return viaEmbedded(ip.toIPv4Address().toString(), "an IPv4-mapped form");
  if (range === "rfc6145")
    return viaEmbedded(embedded(parts[6] ?? 0, parts[7] ?? 0), "an IPv4-translated form");
  // NAT64 well-known prefix: the gateway would connect to the embedded IPv4 address.
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((p) => p === 0)) {
    return viaEmbedded(embedded(parts[6] ?? 0, parts[7] ?? 0), "a NAT64 form");
  }
  if (range === "6to4") return viaEmbedded(embedded(parts[1] ?? 0, parts[2] ?? 0), "a 6to4 form");
  if (range === "teredo") return refuse("is a Teredo tunnel address, which hides its real IPv4 target");
  // First 96 bits zero: loopback, unspecified, or the deprecated IPv4-compatible form (::127.0.0.1).
  if (parts.slice(0, 6).every((p) => p === 0)) {
    return refuse(
      range === "unicast" ? "is an IPv4-compatible (deprecated) address" : `is a ${range} address`,
    );
  }
  if (range !== "unicast") {
    const why = range === "uniqueLocal" ? "unique-local (private; includes fd00:ec2::254 metadata)" : range;
    return refuse(`is a ${why} address`);
  }
  // Only 2000::/3 is allocated for global unicast; anything else is reserved or special.
  if (((parts[0] ?? 0) & 0xe000) !== 0x2000) return refuse("is outside the global unicast range 2000::/3");
  return { public: true, address };
}

/** Classifies a URL host (as `new URL().hostname` gives it: brackets around IPv6, numeric forms maybe raw). */
export function classifyHost(rawHost: string): HostClass {
  let host = rawHost.trim().toLowerCase();
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  if (host.endsWith(".") && !host.includes(":")) host = host.slice(0, -1);
  if (host.includes(":")) {
    const zoneless = host.split("%")[0] ?? host;
    return { kind: "ip", address: zoneless, verdict: classifyAddress(zoneless) };
  }
  const numeric = parseNumericIPv4(host);
  if (numeric !== null) return { kind: "ip", address: numeric, verdict: classifyAddress(numeric) };
  if (host === "") return { kind: "name", name: host, blockedReason: "the host is empty" };
  if (BLOCKED_NAMES.has(host))
    return { kind: "name", name: host, blockedReason: `${host} names a local or metadata service` };
  const suffix = BLOCKED_SUFFIXES.find((s) => host.endsWith(s));
  if (suffix)
    return { kind: "name", name: host, blockedReason: `names under ${suffix} are local-network names` };
  return { kind: "name", name: host };
}

/** Throws a NetworkRefusal unless the address is public. */
export function assertPublicAddress(address: string): void {
  const verdict = classifyAddress(address);
  if (!verdict.public)
    throw new NetworkRefusal(`Refused to connect: ${verdict.reason}.`, "ssrf-private-address");
}

export interface ResolveOptions {
  resolver?: Resolver;
  /** A narrow exception (tests: one exact loopback address); the caller also pins the port. */
  allow?: (address: string) => boolean;
}

/**
 * Resolves a host to the one address the connection must use. Every address in the answer must pass:
 * a name with one public and one private record is refused, since the connection could pick either.
 */
export async function resolvePublicAddress(
  host: string,
  options: ResolveOptions = {},
): Promise<{ address: string; family: 4 | 6 }> {
  const cls = classifyHost(host);
  const allowed = (verdict: AddressVerdict) => verdict.public || options.allow?.(verdict.address) === true;
  if (cls.kind === "ip") {
    if (!allowed(cls.verdict)) {
      const reason = cls.verdict.public ? "" : cls.verdict.reason;
      throw new NetworkRefusal(`Refused to connect to ${host}: ${reason}.`, "ssrf-private-address");
    }
    return { address: cls.verdict.address, family: cls.verdict.address.includes(":") ? 6 : 4 };
  }
  if (cls.blockedReason) {
    throw new NetworkRefusal(`Refused to connect to ${host}: ${cls.blockedReason}.`, "ssrf-blocked-name");
  }
  let answers: { address: string; family: number }[];
  try {
    answers = await (options.resolver ?? systemResolver)(cls.name);
  } catch (error) {
    throw new Error(`Could not resolve ${host}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (answers.length === 0) throw new Error(`Could not resolve ${host}: no addresses.`);
  for (const answer of answers) {
    const verdict = classifyAddress(answer.address);
    if (!allowed(verdict)) {
      const reason = verdict.public ? "" : verdict.reason;
      throw new NetworkRefusal(
        `Refused to connect to ${host}: it resolves to ${reason}.`,
        "ssrf-private-address",
      );
    }
  }
  const first = answers[0] as { address: string; family: number };
  const address = classifyAddress(first.address).address;
  return { address, family: address.includes(":") ? 6 : 4 };
}
