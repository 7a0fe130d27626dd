import { dirname, join } from "node:path";

export type ServicePlatform = "linux" | "darwin";

export interface ServiceSpec {
  platform: ServicePlatform;
  /** The user's home (from HOME), where the unit or agent file goes. */
  userHome: string;
  mercuryHome: string;
  nodePath: string;
  cliPath: string;
  /** PATH for the service: tools the agent runs must be found as in the user's shell. */
  pathEnv: string;
}

export const launchdLabel = "dev.mercury.agent";

export function servicePlatform(platform: NodeJS.Platform): ServicePlatform {
  if (platform === "linux" || platform === "darwin") return platform;
  throw new Error(
    `mercury service supports Linux (systemd) and macOS (launchd), not ${platform}; run \`mercury start\` from your login scripts instead`,
  );
}

export function unitPath(spec: Pick<ServiceSpec, "platform" | "userHome">): string {
  return spec.platform === "linux"
    ? join(spec.userHome, ".config", "systemd", "user", "mercury.service")
    : join(spec.userHome, "Library", "LaunchAgents", `${launchdLabel}.plist`);
}

/** systemd quotes: a value with spaces or quotes is double-quoted with \" and \\ escaped. */
function systemdQuote(value: string): string {
  if (/^[\w@%+=:,./-]+$/.test(value)) return value;
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

function xmlEscape(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * The service definition: runs `mercury daemon run` in the foreground at login; restarts it when
 * it fails (a crash, an uncaught exception) but not after a deliberate `mercury stop` (exit 0).
 */
export function renderUnit(spec: ServiceSpec): string {
  if (spec.platform === "linux") {
    return [
      "[Unit]",
      "Description=Mercury personal AI agent",
      "After=network-online.target",
      "Wants=network-online.target",
      "",
      "[Service]",
      "Type=simple",
      `ExecStart=${[spec.nodePath, spec.cliPath, "daemon", "run"].map(systemdQuote).join(" ")}`,
      `Environment=${systemdQuote(`MERCURY_HOME=${spec.mercuryHome}`)}`,
      `Environment=${systemdQuote(`PATH=${spec.pathEnv}`)}`,
      "Restart=on-failure",
      "RestartSec=5",
      "KillSignal=SIGTERM",
      "TimeoutStopSec=40",
      "",
      "[Install]",
      "WantedBy=default.target",
      "",
    ].join("\n");
  }
  const args = [spec.nodePath, spec.cliPath, "daemon", "run"]
    .map((arg) => `    <string>${xmlEscape(arg)}</string>`)
    .join("\n");
  const log = xmlEscape(join(spec.mercuryHome, "logs", "daemon.log"));
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${launchdLabel}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>MERCURY_HOME</key>
    <string>${xmlEscape(spec.mercuryHome)}</string>
    <key>PATH</key>
    <string>${xmlEscape(spec.pathEnv)}</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>StandardOutPath</key>
  <string>${log}</string>
  <key>StandardErrorPath</key>
  <string>${log}</string>
</dict>
</plist>
`;
}

/** The commands the user runs after install / before uninstall (Mercury never runs them itself). */
export function activationCommands(
  platform: ServicePlatform,
  path: string,
  action: "install" | "uninstall",
): string[] {
  if (platform === "linux") {
    return action === "install"
      ? ["systemctl --user daemon-reload", "systemctl --user enable --now mercury.service"]
      : ["systemctl --user stop mercury.service", "systemctl --user daemon-reload"];
  }
  // By label, not by path: the agent's file is already gone when the user runs it.
  return action === "install"
    ? [`launchctl bootstrap gui/$(id -u) ${path}`]
    : [`launchctl bootout gui/$(id -u)/${launchdLabel}`];
}

/**
 * The link `systemctl --user enable` made (WantedBy=default.target). While it exists the unit must
 * be disabled before its file is removed: `disable` needs the file, and without it the link stays
 * behind, dangling, and systemd starts nothing but complains at every login.
 */
export function enabledLinkPath(path: string): string {
  return join(dirname(path), "default.target.wants", "mercury.service");
}
