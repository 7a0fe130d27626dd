import type { AgentEvent } from "../agent/events.js";
import type { WorkLedger } from "../agent/ledger.js";
import type { MercuryApp } from "../app/container.js";
import type { Logger } from "../app/logger.js";
import type { DaemonGateway } from "../channels/gateway.js";

/**
 * What the dashboard works through: the daemon's own app, gateway and ledger (the same services
 * the CLI and Telegram use), so an action here is the same action there.
 */
export interface DashboardServices {
  app: MercuryApp;
  gateway: DaemonGateway;
  ledger: WorkLedger;
  /** The dashboard acts as the machine's owner, like the local socket. */
  ownerKey: string;
  /** The daemon's status document (`mercury status --json`). */
  status(): unknown;
  /** The daemon's logger (daemon.log); request URLs and tokens never go to it. */
  logger: Logger;
  /** The daemon's log file, for the log view. */
  logPath: string;
}

/** The dashboard's ledger channel: its chat has its own session, like the terminal's. */
export const dashboardChannel = "dashboard";

export function ownerEvents(services: DashboardServices, listener: (event: AgentEvent) => void): () => void {
  return services.gateway.subscribe((event) => {
    if (event.userKey === services.ownerKey) listener(event);
  });
}
