import type { Finding } from "./shell-words.js";

/**
 * Commands that leave something to run later, outside Mercury and outside the OS sandbox: an `at`
 * job, a crontab, a systemd unit or timer, a launchd agent, lingering user services. Asked, and only
 * a person may approve them (`command.persistence` is never settled by `--yes` or allow-all).
 */
export function persistenceFinding(program: string, args: string[]): Finding | null {
  const operands = args.filter((arg) => !arg.startsWith("-"));
  const why = (what: string): Finding => ({
    decision: "ask",
    rule: "command.persistence",
    reason: `${what}; it would run later, outside Mercury and its sandbox, so only a person approves it`,
  });
  if (program === "at" || program === "batch") return why(`${program} schedules a job`);
  if (program === "crontab" && !args.every((arg) => ["-l", "-u"].includes(arg) || !arg.startsWith("-")))
    return why("crontab changes the scheduled jobs");
  if (program === "crontab" && operands.length > 0) return why("crontab installs a new table of jobs");
  if (program === "systemd-run") return why("systemd-run starts a service");
  if (
    program === "systemctl" &&
    /^(enable|link|edit|preset|preset-all|add-wants|add-requires|set-property|daemon-reload|revert|reenable)$/.test(
      operands[0] ?? "",
    )
  )
    return why(`systemctl ${operands[0]} changes which services start`);
  if (program === "launchctl" && /^(load|bootstrap|submit|enable|kickstart)$/.test(operands[0] ?? ""))
    return why(`launchctl ${operands[0]} installs a launchd job`);
  // Pass 10: tools that install their own timers or boot entries.
  if (program === "git") {
    const at = operands.indexOf("maintenance");
    if (at >= 0 && /^(start|register)$/.test(operands[at + 1] ?? ""))
      return why(
        `git maintenance ${operands[at + 1]} installs a scheduled job (cron, systemd timer or launchd) and changes the user's git configuration`,
      );
  }
  if (program === "incrontab" && !args.every((arg) => arg === "-l" || !arg.startsWith("-")))
    return why("incrontab changes the jobs run on file events");
  if (program === "pm2" && /^(startup|save)$/.test(operands[0] ?? ""))
    return why(`pm2 ${operands[0]} makes processes start again at boot`);
  if (program === "brew" && operands[0] === "services" && /^(start|restart|run)$/.test(operands[1] ?? ""))
    return why(`brew services ${operands[1]} installs a launchd or systemd service`);
  if (program === "loginctl" && operands[0] === "enable-linger")
    return why("loginctl enable-linger keeps user services running");
  return null;
}
