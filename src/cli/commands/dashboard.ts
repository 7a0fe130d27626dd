import type { Command } from "commander";
import type { GlobalFlags } from "../flags.js";

export interface DashboardCommandOptions {
  host?: string;
  port?: string;
  insecureLan?: boolean;
  open?: boolean;
  json?: boolean;
}

/** `mercury dashboard [open|stop|status]`: the web dashboard in the daemon; work in dashboard-action.ts. */
export function registerDashboardCommands(program: Command): void {
  const dashboard = program
    .command("dashboard")
    .description(
      "start the web dashboard in the daemon (starting the daemon if needed) and open a one-time login link",
    )
    .option("--host <address>", "address to listen on (default 127.0.0.1; others need TLS or --insecure-lan)")
    .option("--port <n>", "port to listen on (default 4780; 0 picks a free one)")
    .option(
      "--insecure-lan",
      "allow plain HTTP on a non-loopback address: anyone on that network can watch and hijack the session",
    )
    .option("--no-open", "print the login link instead of opening a browser")
    .option("--json", "print one JSON document")
    .action(async (options: DashboardCommandOptions, command: Command) => {
      const { dashboardAction } = await import("./dashboard-action.js");
      process.exitCode = await dashboardAction("start", options, command.optsWithGlobals<GlobalFlags>());
    });
  dashboard
    .command("open")
    .description("print (or open) a fresh one-time login link for the running dashboard")
    .option("--no-open", "print the login link instead of opening a browser")
    .option("--json", "print one JSON document")
    .action(async (options: DashboardCommandOptions, command: Command) => {
      const { dashboardAction } = await import("./dashboard-action.js");
      process.exitCode = await dashboardAction(
        "link",
        merged(options, command),
        command.optsWithGlobals<GlobalFlags>(),
      );
    });
  dashboard
    .command("status")
    .description("whether the dashboard runs, and where")
    .option("--json", "print one JSON document")
    .action(async (options: DashboardCommandOptions, command: Command) => {
      const { dashboardAction } = await import("./dashboard-action.js");
      process.exitCode = await dashboardAction(
        "status",
        merged(options, command),
        command.optsWithGlobals<GlobalFlags>(),
      );
    });
  dashboard
    .command("stop")
    .description("stop the dashboard (the daemon keeps running; every session ends)")
    .option("--json", "print one JSON document")
    .action(async (options: DashboardCommandOptions, command: Command) => {
      const { dashboardAction } = await import("./dashboard-action.js");
      process.exitCode = await dashboardAction(
        "stop",
        merged(options, command),
        command.optsWithGlobals<GlobalFlags>(),
      );
    });
}

/** `--json`/`--no-open` are declared on `dashboard` too; commander gives them to it wherever they stand. */
function merged(options: DashboardCommandOptions, command: Command): DashboardCommandOptions {
  return { ...command.optsWithGlobals<DashboardCommandOptions>(), ...options };
}
