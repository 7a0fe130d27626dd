import { checkBind, DashboardBindError } from "./bind.js";
import { DashboardHost } from "./host.js";
import type { DashboardServices } from "./services.js";

export interface DashboardControlRequest {
  action: "start" | "link" | "status" | "stop";
  host?: string;
  port?: number;
  insecureLan?: boolean;
}

/**
 * What the daemon mounts: the dashboard host, started now when `dashboard.enabled`, and the
 * handler of the control socket's `dashboard` requests. The login link goes back over the 0600
 * socket to the CLI that asked; it is never logged.
 */
export function mountDashboard(services: DashboardServices): {
  handle(request: DashboardControlRequest): Promise<unknown>;
  checkConfiguredBind(): void;
  startIfEnabled(): Promise<void>;
  stop(): Promise<boolean>;
} {
  const host = new DashboardHost(services);
  let lastError: string | null = null;
  return {
    async handle(request) {
      switch (request.action) {
        case "start": {
          lastError = null;
          const info = await host.start({
            ...(request.host !== undefined ? { host: request.host } : {}),
            ...(request.port !== undefined ? { port: request.port } : {}),
            ...(request.insecureLan !== undefined ? { insecureLan: request.insecureLan } : {}),
          });
          return { ...info, running: true, loginUrl: host.loginLink() };
        }
        case "link": {
          const info = host.status();
          if (!info) {
            const bind = host.bindFor();
            if (!bind.enabled)
              throw new Error(
                "the dashboard is not running: start it with `mercury dashboard` (or set dashboard.enabled: true)",
              );
            await host.start();
          }
          return { ...(host.status() ?? {}), running: true, loginUrl: host.loginLink() };
        }
        case "status": {
          const info = host.status();
          return info
            ? { ...info, running: true }
            : { running: false, ...(lastError ? { error: lastError } : {}) };
        }
        case "stop":
          return { running: false, stopped: await host.stop() };
      }
    },
    /**
     * A refused bind (a network address without TLS) stops the daemon's start: the user asked for
     * something unsafe. Any other failure (the port is taken) is logged and shown by
     * `mercury dashboard status`; the agent keeps running without its dashboard.
     */
    /** Throws the refusal of an unsafe configured bind, so the daemon can refuse before it answers anyone. */
    checkConfiguredBind() {
      const bind = host.bindFor();
      if (bind.enabled) checkBind(bind);
    },
    async startIfEnabled() {
      if (!host.bindFor().enabled) return;
      try {
        await host.start();
      } catch (error) {
        if (error instanceof DashboardBindError) throw error;
        lastError = error instanceof Error ? error.message : String(error);
        services.logger.error({ component: "dashboard", error: lastError }, "dashboard not started");
      }
    },
    stop: () => host.stop(),
  };
}
