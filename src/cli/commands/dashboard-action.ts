import { spawn } from "node:child_process";
import { z } from "zod";
import { readConfigFile } from "../../config/load.js";
import { homePaths, mercuryHome } from "../../config/paths.js";
import { DaemonClient } from "../../daemon/client.js";
import { exitCodes } from "../exit-codes.js";
import type { GlobalFlags } from "../flags.js";
import type { DashboardCommandOptions } from "./dashboard.js";

const reply = z
  .object({
    running: z.boolean(),
    url: z.string().optional(),
    host: z.string().optional(),
    port: z.number().optional(),
    tls: z.boolean().optional(),
    insecureLan: z.boolean().optional(),
    loginUrl: z.string().optional(),
    stopped: z.boolean().optional(),
    error: z.string().optional(),
  })
  .passthrough();

/**
 * Talks to the daemon over its 0600 control socket (starting the daemon for `start`). The login
 * link comes back over the socket and goes to this terminal or the browser only.
 */
export async function dashboardAction(
  action: "start" | "link" | "status" | "stop",
  options: DashboardCommandOptions,
  globals: GlobalFlags,
): Promise<number> {
  const paths = homePaths(mercuryHome(process.env));
  // A bad `dashboard:` section is a configuration error (exit 2) here, not a daemon that fails later.
  readConfigFile(paths.config);
  let port: number | undefined;
  if (options.port !== undefined) {
    port = Number(options.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      process.stderr.write(`mercury: --port must be a whole number from 0 to 65535, got "${options.port}"\n`);
      return exitCodes.usage;
    }
  }
  let client = await DaemonClient.tryConnect(paths.socket);
  if (!client) {
    if (action !== "start") {
      const message = "the daemon is not running; `mercury dashboard` starts it with the dashboard";
      if (options.json)
        process.stdout.write(`${JSON.stringify({ running: false, daemon: false, message })}\n`);
      else process.stderr.write(`mercury: ${message}\n`);
      return action === "status" ? exitCodes.success : exitCodes.failure;
    }
    const { startDetached } = await import("../../daemon/control.js");
    const { pid } = await startDetached({
      paths,
      env: process.env,
      globalArgs: [
        ...(globals.provider ? ["--provider", globals.provider] : []),
        ...(globals.model ? ["--model", globals.model] : []),
        ...(globals.baseUrl ? ["--base-url", globals.baseUrl] : []),
      ],
    });
    if (!options.json) process.stderr.write(`mercury started (pid ${pid})\n`);
    client = await DaemonClient.connect(paths.socket);
  }
  let result: z.infer<typeof reply>;
  try {
    result = reply.parse(
      await client.request({
        type: "dashboard",
        action,
        ...(options.host !== undefined ? { host: options.host } : {}),
        ...(port !== undefined ? { port } : {}),
        ...(options.insecureLan ? { insecureLan: true } : {}),
      }),
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (options.json) process.stdout.write(`${JSON.stringify({ ok: false, error: message })}\n`);
    else process.stderr.write(`mercury: ${message}\n`);
    return exitCodes.failure;
  } finally {
    client.close();
  }
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return exitCodes.success;
  }
  if (action === "stop") {
    process.stdout.write(result.stopped ? "Dashboard stopped.\n" : "The dashboard was not running.\n");
    return exitCodes.success;
  }
  if (action === "status") {
    process.stdout.write(
      result.running
        ? `Dashboard: ${result.url ?? "?"}\n`
        : `Dashboard: not running${result.error ? ` (it failed to start: ${result.error})` : ""}\n`,
    );
    return exitCodes.success;
  }
  if (result.insecureLan)
    process.stderr.write(
      "warning: the dashboard serves plain HTTP on a network address (--insecure-lan); anyone on that network can read and hijack the session.\n",
    );
  const link = result.loginUrl ?? "";
  process.stdout.write(`Dashboard: ${result.url ?? "?"}\n`);
  if (options.open !== false && process.stdout.isTTY && openBrowser(link)) {
    process.stdout.write("Opened the one-time login link in your browser.\n");
  } else {
    process.stdout.write(`One-time login link (works once, for 15 minutes):\n${link}\n`);
  }
  return exitCodes.success;
}

/** The desktop's opener, without a shell; false when there is none (a server, ssh). */
function openBrowser(url: string): boolean {
  const opener =
    process.platform === "darwin"
      ? "open"
      : process.platform === "win32"
        ? null
        : process.env.DISPLAY || process.env.WAYLAND_DISPLAY
          ? "xdg-open"
          : null;
  if (!opener) return false;
  const child = spawn(opener, [url], { detached: true, stdio: "ignore" });
  child.on("error", (error) =>
    process.stderr.write(`mercury: could not open a browser (${error.message})\n`),
  );
  child.unref();
  return true;
}
