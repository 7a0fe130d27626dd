import { existsSync, lstatSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir, userInfo } from "node:os";
import { dirname, resolve } from "node:path";
import { type Command, Option } from "commander";
import { ConfigError } from "../../config/errors.js";
import { mercuryHome } from "../../config/paths.js";
import {
  activationCommands,
  enabledLinkPath,
  renderUnit,
  type ServiceSpec,
  servicePlatform,
  unitPath,
} from "../../daemon/service-unit.js";
import { lingerEnabled } from "../doctor/checks-always-on.js";
import { exitCodes } from "../exit-codes.js";

interface ServiceOptions {
  dryRun?: boolean;
  json?: boolean;
  platform?: string;
}

function spec(options: ServiceOptions): ServiceSpec {
  const platformName = options.platform ?? process.platform;
  if (platformName !== "linux" && platformName !== "darwin" && options.platform !== undefined) {
    throw new ConfigError(`--platform "${options.platform}": expected linux or darwin.`);
  }
  const cli = process.argv[1];
  if (!cli) throw new Error("cannot tell where the mercury program is (process.argv[1] is empty)");
  const home = process.env.HOME;
  return {
    platform: servicePlatform(platformName as NodeJS.Platform),
    userHome: home && home.trim() !== "" ? home : homedir(),
    mercuryHome: mercuryHome(process.env),
    nodePath: process.execPath,
    cliPath: resolve(cli),
    pathEnv: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
  };
}

/**
 * A systemd user unit stops when its user logs out unless lingering is on; for an agent meant to run
 * 24/7 that is the difference between working and silently not working.
 */
function lingeringNote(lingering: boolean | null): string {
  const user = userInfo().username;
  const state =
    lingering === false
      ? "Lingering is off for your user"
      : "Could not tell whether lingering is on (no loginctl here)";
  return `${state}: without it systemd stops your user services when you log out, and starts them only at your next login.\nTo keep Mercury running 24/7, enable it once (needs your password or sudo):\n  loginctl enable-linger ${user}\n`;
}

/** `mercury service install|uninstall|status [--dry-run]`: a systemd user unit or launchd agent. */
export function registerServiceCommands(program: Command): void {
  const service = program
    .command("service")
    .description("start Mercury at login (systemd user unit / launchd agent)");
  const withOptions = (command: Command) =>
    command
      .option("--dry-run", "print what would be written, change nothing")
      .option("--json", "print one JSON document")
      .addOption(new Option("--platform <name>", "linux or darwin (default: this machine)").hideHelp());

  withOptions(
    service.command("install").description("write the unit and print the commands that enable it"),
  ).action((options: ServiceOptions) => {
    const current = spec(options);
    const path = unitPath(current);
    const unit = renderUnit(current);
    const commands = activationCommands(current.platform, path, "install");
    if (!options.dryRun) {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, unit, { mode: 0o644 });
    }
    const lingering = current.platform === "linux" ? lingerEnabled() : null;
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({ path, written: !options.dryRun, unit, commands, lingering })}\n`,
      );
      return;
    }
    if (options.dryRun) process.stdout.write(`# would write ${path}\n${unit}`);
    else process.stdout.write(`wrote ${path}\n`);
    process.stdout.write(
      `${options.dryRun ? "# then run" : "now run"}:\n${commands.map((c) => `  ${c}`).join("\n")}\n`,
    );
    if (current.platform === "linux" && lingering !== true) process.stdout.write(lingeringNote(lingering));
  });

  withOptions(service.command("uninstall").description("remove the unit (disable it first)")).action(
    (options: ServiceOptions) => {
      const current = spec(options);
      const path = unitPath(current);
      const exists = existsSync(path);
      const enabledLink = current.platform === "linux" ? enabledLinkPath(path) : null;
      // lstat, not exists: a dangling link (from an earlier removal) is still an enabled unit.
      const enabled = enabledLink !== null && lstatSync(enabledLink, { throwIfNoEntry: false }) !== undefined;
      if (exists && enabled) {
        const disable = "systemctl --user disable --now mercury.service";
        const error = `mercury.service is still enabled (${enabledLink}); disable it first with \`${disable}\`, then run \`mercury service uninstall\` again`;
        if (options.json)
          process.stdout.write(
            `${JSON.stringify({ path, existed: true, removed: false, enabled: true, commands: [disable], error })}\n`,
          );
        process.stderr.write(`mercury: ${error}\n`);
        process.exitCode = exitCodes.failure;
        return;
      }
      const commands = activationCommands(current.platform, path, "uninstall");
      if (exists && !options.dryRun) unlinkSync(path);
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ path, existed: exists, removed: exists && !options.dryRun, enabled, commands })}\n`,
        );
        return;
      }
      if (!exists) process.stdout.write(`no service installed at ${path}\n`);
      else process.stdout.write(`${options.dryRun ? "would remove" : "removed"} ${path}\n`);
      if (exists)
        process.stdout.write(
          `if it is still running, stop it and let the service manager forget it:\n${commands.map((c) => `  ${c}`).join("\n")}\n`,
        );
    },
  );

  withOptions(service.command("status").description("is the unit installed, and is it current")).action(
    (options: ServiceOptions) => {
      const current = spec(options);
      const path = unitPath(current);
      const installed = existsSync(path);
      const upToDate = installed && readFileSync(path, "utf8") === renderUnit(current);
      if (options.json) {
        process.stdout.write(
          `${JSON.stringify({ path, installed, upToDate, platform: current.platform })}\n`,
        );
      } else if (!installed) {
        process.stdout.write(`not installed (would be ${path}); run \`mercury service install\`\n`);
      } else {
        process.stdout.write(
          `installed at ${path}${upToDate ? "" : " — differs from this Mercury's unit; run `mercury service install` again"}\n`,
        );
      }
      if (!installed) process.exitCode = exitCodes.failure;
    },
  );
}
