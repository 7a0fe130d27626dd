import type { Finding } from "./shell-words.js";

/**
 * Programs that ask a service outside the sandbox to change the machine: the service manager
 * (`systemctl stop|mask|restart`, `service x stop`), the kernel's modules, firewall and network
 * (`modprobe`, `iptables -F`, `nft`, `ip route del`, `nmcli con down`), clocks and names
 * (`timedatectl set-*`, `hostnamectl set-*`), desktop settings over D-Bus (`gsettings set`, `dconf
 * reset`, `busctl call`, `dbus-send`), and alternatives and mounts. What they change is not in the
 * workspace, so a person decides (`command.privilege`, never allow-all's). Queries stay ordinary asks.
 */
const queries: Record<string, RegExp> = {
  systemctl:
    /^(status|show|cat|is-active|is-enabled|is-failed|is-system-running|list-[\w-]+|help|get-default)$/,
  service: /^(--status-all)$/,
  ip: /^(a|addr|address|r|route|l|link|n|neigh|rule|-\w+)$/,
  nmcli: /^(g|general|d|device|c|connection|r|radio|-\w+)$/,
  timedatectl: /^(status|show|list-timezones|timesync-status)$/,
  hostnamectl: /^(status|hostname)$/,
  localectl: /^(status|list-[\w-]+)$/,
  gsettings: /^(get|list-[\w-]+|range|describe|writable|monitor|help)$/,
  dconf: /^(read|list|dump|watch|help)$/,
  busctl: /^(list|status|monitor|capture|tree|introspect|get-property|help)$/,
  "update-alternatives": /^(--display|--query|--list|--get-selections)$/,
  nft: /^(list|-\w+)$/,
};
/** Programs whose every use changes the machine (no query form worth allowing). */
const alwaysChanging = new Set([
  "modprobe",
  "insmod",
  "rmmod",
  "iptables",
  "ip6tables",
  "iptables-restore",
  "ufw",
  "firewall-cmd",
  "dbus-send",
  "gdbus",
  "mount",
  "umount",
  "swapon",
  "swapoff",
  "xdg-settings",
  "xdg-mime",
]);
const queryOnlyFlags = /^(-L|--list|-S|--list-rules|-h|--help|--version|-V|-l)$/;

export function systemDaemonFinding(program: string, args: string[]): Finding | null {
  const operands = args.filter((arg) => !arg.startsWith("-") || program === "update-alternatives");
  const ask = (what: string): Finding => ({
    decision: "ask",
    rule: "command.privilege",
    reason: `${what} asks a service outside the sandbox to change the machine (services, kernel, network, settings); only a person approves it`,
  });
  if (alwaysChanging.has(program)) {
    if (args.length === 0 || args.every((arg) => queryOnlyFlags.test(arg))) return null;
    return ask(`${program} ${args.join(" ")}`);
  }
  const query = queries[program];
  if (query === undefined || !Object.hasOwn(queries, program)) return null;
  if (program === "ip" || program === "nmcli" || program === "nft") {
    // `ip route show`, `nmcli device status` are queries; `ip route del default`, `nmcli con down x` are not.
    const verb = operands[1];
    if (verb === undefined || /^(show|list|ls|s|get|status|monitor|help)$/.test(verb)) return null;
    if (program === "nft" && operands[0] === "list") return null;
    return ask(`${program} ${args.join(" ")}`);
  }
  const first = program === "update-alternatives" ? args[0] : operands[0];
  if (first === undefined || query.test(first)) return null;
  return ask(`${program} ${args.join(" ")}`);
}
