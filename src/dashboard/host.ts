import { readConfigFile } from "../config/load.js";
import { type DashboardBind, resolveDashboardConfig } from "./bind.js";
import { type DashboardInfo, DashboardServer } from "./server.js";
import type { DashboardServices } from "./services.js";

export interface DashboardStartRequest {
  host?: string;
  port?: number;
  insecureLan?: boolean;
}

/**
 * The daemon's one dashboard: started with the daemon when `dashboard.enabled`, or on request over
 * the control socket (`mercury dashboard`). One instance; asking again returns a new login link.
 */
export class DashboardHost {
  private server: DashboardServer | null = null;
  private starting: Promise<DashboardInfo> | null = null;

  constructor(private readonly services: DashboardServices) {}

  /** The configured bind (config.yaml `dashboard:`), with a request's overrides. */
  bindFor(request: DashboardStartRequest = {}): DashboardBind & { enabled: boolean } {
    const configured = resolveDashboardConfig(readConfigFile(this.services.app.paths.config).dashboard);
    return {
      ...configured,
      ...(request.host !== undefined ? { host: request.host } : {}),
      ...(request.port !== undefined ? { port: request.port } : {}),
      insecureLan: request.insecureLan ?? false,
    };
  }

  async start(request: DashboardStartRequest = {}): Promise<DashboardInfo> {
    const running = this.server?.current();
    if (running) {
      const wanted = this.bindFor(request);
      const differs =
        (request.host !== undefined && request.host !== running.host) ||
        (request.port !== undefined && request.port !== 0 && request.port !== running.port);
      if (differs)
        throw new Error(
          `the dashboard already listens on ${running.url}; stop it first (mercury dashboard stop) to move it to ${wanted.host}:${wanted.port}`,
        );
      return running;
    }
    if (this.starting) return this.starting;
    const server = new DashboardServer(this.services, this.bindFor(request));
    this.starting = server
      .listen()
      .then((info) => {
        this.server = server;
        this.services.logger.info(
          { component: "dashboard", url: info.url, tls: info.tls, insecureLan: info.insecureLan },
          "dashboard listening",
        );
        return info;
      })
      .finally(() => {
        this.starting = null;
      });
    return this.starting;
  }

  /** A fresh one-time login link; never logged. */
  loginLink(): string {
    if (!this.server) throw new Error("the dashboard is not running; start it with `mercury dashboard`");
    return this.server.loginLink();
  }

  status(): DashboardInfo | null {
    return this.server?.current() ?? null;
  }

  async stop(): Promise<boolean> {
    const server = this.server;
    this.server = null;
    if (!server) return false;
    await server.close();
    this.services.logger.info({ component: "dashboard" }, "dashboard stopped");
    return true;
  }
}
