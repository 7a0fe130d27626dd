import { isIPv4 } from "node:net";
import { networkInterfaces } from "node:os";
import { type SupervisorPlan, supervisorSource } from "./network-supervisor.js";
import type { Launch } from "./types.js";

/** The programs the filtered network needs besides bwrap, resolved to absolute paths. */
export interface NetworkFilterTools {
  slirp4netns: string;
  unshare: string;
  ip: string;
  setpriv: string;
}

/** slirp4netns's defaults: the sandbox is 10.0.2.100, the host-side gateway 10.0.2.2, DNS 10.0.2.3. */
export const SLIRP_DNS = "10.0.2.3";
const SLIRP_GATEWAY = "10.0.2.2";

/**
 * Destinations a sandboxed command with network never reaches, each a `prohibit` route (the
 * connection fails at once with EACCES). Route lookup takes the longest match, so slirp's own
 * 10.0.2.0/24 (the DNS forwarder) stays reachable inside the blocked 10/8.
 */
export const blockedIpv4 = [
  "0.0.0.0/8", // "this network"
  "10.0.0.0/8", // private
  "100.64.0.0/10", // carrier-grade NAT
  "127.0.0.0/8", // loopback (the sandbox's own lo is in the local table and still works)
  "169.254.0.0/16", // link-local: cloud metadata services (169.254.169.254)
  "172.16.0.0/12", // private
  "192.0.0.0/24", // IETF protocol assignments
  "192.0.2.0/24", // documentation (TEST-NET-1)
  "192.168.0.0/16", // private
  "198.18.0.0/15", // benchmarking
  "198.51.100.0/24", // documentation (TEST-NET-2)
  "203.0.113.0/24", // documentation (TEST-NET-3)
  "224.0.0.0/4", // multicast
  "240.0.0.0/4", // reserved and broadcast
  `${SLIRP_GATEWAY}/32`, // the host itself through slirp (its loopback is refused by slirp too)
];

/**
 * The filter as `ip -batch` lines: the blocked ranges, every address of this machine's own
 * interfaces (a public one too: the host's services are not the internet), and all of IPv6
 * (slirp4netns runs without IPv6; the route makes the refusal immediate and explicit).
 */
export function filterRoutes(hostAddresses: string[] = ownAddresses()): string {
  const lines = blockedIpv4.map((range) => `route add prohibit ${range}`);
  for (const address of hostAddresses) {
    if (isIPv4(address)) lines.push(`route add prohibit ${address}/32`);
  }
  lines.push("route add prohibit ::/0");
  // A duplicate (an own address inside a blocked range) would stop ip -batch: keep the first.
  return [...new Set(lines)].join("\n");
}

/** This machine's own IPv4 addresses (all interfaces). */
export function ownAddresses(): string[] {
  const addresses: string[] = [];
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === "IPv4") addresses.push(entry.address);
  }
  return addresses;
}

export interface FilteredLaunchInput {
  /** bwrap and its arguments (without --unshare-net; resolv.conf read from fd 5). */
  bwrap: Launch;
  tools: NetworkFilterTools;
  /** Whether Mercury runs as root: then no user namespace is needed for the network namespace. */
  root: boolean;
}

/**
 * The launch of a command with the filtered network: `setpriv --pdeathsig KILL` (the supervisor
 * dies with Mercury, and bwrap with the supervisor) running the Node supervisor, which builds the
 * network namespace, starts slirp4netns, installs the routes and only then starts bwrap.
 */
export function filteredNetworkLaunch(input: FilteredLaunchInput): Launch {
  const plan: SupervisorPlan = {
    // As a user, the network namespace needs a user namespace of its own in which the stage is
    // root, so that it keeps CAP_NET_ADMIN through exec to install the routes; bwrap then maps the
    // command back to the user in a nested namespace (BubblewrapInput.runAs), without capabilities.
    unshare: [input.tools.unshare, "--net", ...(input.root ? [] : ["--map-root-user"])],
    ip: input.tools.ip,
    routes: filterRoutes(),
    slirp4netns: input.tools.slirp4netns,
    // --enable-sandbox needs root in its namespace; as a user, slirp4netns holds nothing to drop.
    slirpFlags: input.root ? ["--enable-sandbox"] : [],
    resolvConf: `nameserver ${SLIRP_DNS}\n`,
    bwrap: [input.bwrap.file, ...input.bwrap.args],
  };
  return {
    file: input.tools.setpriv,
    args: ["--pdeathsig", "KILL", "--", process.execPath, "-e", supervisorSource(), JSON.stringify(plan)],
  };
}
