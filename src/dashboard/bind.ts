import { isIP } from "node:net";
import type { DashboardConfigFile } from "../config/dashboard-schema.js";

export const defaultDashboardPort = 4780;

export interface DashboardBind {
  host: string;
  port: number;
  tls: { cert: string; key: string } | null;
  /** The user said `--insecure-lan`: plain HTTP on a non-loopback address, knowingly. */
  insecureLan: boolean;
}

export function resolveDashboardConfig(file: DashboardConfigFile | undefined): DashboardBind & {
  enabled: boolean;
} {
  return {
    enabled: file?.enabled ?? false,
    host: file?.host ?? "127.0.0.1",
    port: file?.port ?? defaultDashboardPort,
    tls: file?.tlsCert && file.tlsKey ? { cert: file.tlsCert, key: file.tlsKey } : null,
    insecureLan: false,
  };
}

export class DashboardBindError extends Error {
  override name = "DashboardBindError";
}

/** Loopback names and addresses: only processes on this machine can reach them. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) return bare === "::1" || bare === "0:0:0:0:0:0:0:1";
  return false;
}

/**
 * Refuses a bind that would put the dashboard (which can run commands through the agent) on a
 * network without encryption, unless the user said so explicitly. The message says why.
 */
export function checkBind(bind: DashboardBind): void {
  if (isLoopbackHost(bind.host)) return;
  if (bind.tls !== null || bind.insecureLan) return;
  throw new DashboardBindError(
    `refusing to serve the dashboard on ${bind.host}: that address is reachable from other machines, and without TLS ` +
      "the session cookie and everything you do (approving commands, reading memories) crosses the network in clear text; " +
      "anyone on the network (a café Wi-Fi, a compromised router) could take over the session and run commands on this machine. " +
      "Use the default 127.0.0.1 (reach it remotely through `ssh -L`), or set dashboard.tlsCert and dashboard.tlsKey, " +
      "or pass --insecure-lan if you accept that risk on a network you fully trust.",
  );
}
