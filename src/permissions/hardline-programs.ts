import { ownEntry } from "./own-key.js";
import type { Finding } from "./shell-words.js";

/**
 * Programs on the hardline by what they are: disk and partition tools, power and session state,
 * reading another process's memory. Listing and printing modes of disk tools stay possible.
 */

const diskTools: Record<string, { readonlyArgs: RegExp }> = {
  blkdiscard: { readonlyArgs: /^(-V|--version|-h|--help)$/ },
  sgdisk: {
    readonlyArgs:
      /^(-p|--print|-v|--verify|-i|--info(=.*)?|-L|--list-types|-V|--version|-h|--help|\/dev\/.+)$/,
  },
  sfdisk: {
    readonlyArgs:
      /^(-l|--list|-d|--dump|-J|--json|-V|--verify|-s|--show-size|-g|--show-geometry|-F|--list-free|-h|--help|--version|\/dev\/.+)$/,
  },
  fdisk: { readonlyArgs: /^(-l|--list|-x|--list-details|-V|--version|-h|--help|\/dev\/.+)$/ },
  gdisk: { readonlyArgs: /^(-l|\/dev\/.+)$/ },
  cfdisk: { readonlyArgs: /^(-V|--version|-h|--help)$/ },
  parted: {
    readonlyArgs:
      /^(-l|--list|-s|--script|-m|--machine|print|unit|[A-Za-z]+B?|-v|--version|-h|--help|\/dev\/.+)$/,
  },
  mdadm: {
    readonlyArgs: /^(-D|--detail|-E|--examine|-Q|--query|--scan|-s|-V|--version|-h|--help|\/dev\/.+)$/,
  },
  pvremove: { readonlyArgs: /^$/ },
  vgremove: { readonlyArgs: /^$/ },
  lvremove: { readonlyArgs: /^$/ },
  pvcreate: { readonlyArgs: /^$/ },
  cryptsetup: {
    readonlyArgs:
      /^(status|luksDump|isLuks|--version|-V|--help|-h|--debug|-v|--verbose|\/dev\/.+|[A-Za-z0-9_-]+)$/,
  },
  nvme: {
    readonlyArgs:
      /^(list|id-ctrl|id-ns|smart-log|error-log|version|help|-o|--output-format(=.*)?|json|normal|\/dev\/.+)$/,
  },
  hdparm: { readonlyArgs: /^(-[iIgtTrC]+|\/dev\/.+)$/ },
  badblocks: { readonlyArgs: /^(-[bcsv]+|-b|-c|\d+|\/dev\/.+)$/ },
  flashrom: {
    readonlyArgs: /^(-p|--programmer|-r|--read|-V|--verbose|--version|-h|--help|internal|[^-].*)$/,
  },
  zpool: { readonlyArgs: /^(list|status|iostat|get|history|-[vHpPLx]+|[A-Za-z0-9_@/.-]+)$/ },
  diskutil: { readonlyArgs: /^(list|info|activity|listFilesystems|apfs|-plist|[A-Za-z0-9/_.-]+)$/ },
  sg_format: { readonlyArgs: /^$/ },
  efibootmgr: { readonlyArgs: /^(-v|--verbose|-u|--unicode)$/ },
  "grub-install": { readonlyArgs: /^(--version|-V|--help|-h)$/ },
  "update-grub": { readonlyArgs: /^$/ },
  dmsetup: { readonlyArgs: /^(ls|info|status|table|deps|version|targets|--[a-z-]+|[A-Za-z0-9_-]+)$/ },
};

/** Disk verbs that destroy data even where the tool otherwise only reads. */
const destructiveDiskWords =
  /^(-Z|--zap-all|-z|--zap|-o|--clear|-d|--delete(=.*)?|-n|--new(=.*)?|--zero-superblock|--create|-C|luksFormat|erase|luksErase|reencrypt|format|sanitize|write-zeroes|delete-ns|destroy|labelclear|create|eraseDisk|eraseVolume|partitionDisk|zeroDisk|randomDisk|secureErase|reformat|deleteContainer|deleteVolume|remove|remove_all|wipe_table|mklabel|mkpart|rm|resizepart|-w|--write|-E|--erase|-B|--delete-bootnum|--security-erase(-enhanced)?|--trim-sector-ranges(-stdin)?|--write-sector|--fwdownload.*|--make-bad-sector|--dco-restore)$/;

export function diskFinding(program: string, args: string[]): Finding | null {
  const tool = ownEntry(diskTools, program);
  if (!tool) return null;
  const destructive = args.some((arg) => destructiveDiskWords.test(arg) || /^-[A-Za-z]*Z/.test(arg));
  // Read-only only with an explicit listing/printing argument: `fdisk /dev/sda` alone opens an editor on the disk.
  const listing = args.some((arg) => !arg.startsWith("/dev/"));
  if (!destructive && listing && args.every((arg) => tool.readonlyArgs.test(arg))) return null;
  return {
    decision: "deny",
    rule: "hardline.disk",
    reason: `${program} ${args.join(" ")} changes partitions, boot entries or whole disks`.trim(),
  };
}

const powerPrograms = new Set([
  "shutdown",
  "reboot",
  "halt",
  "poweroff",
  "systemd-shutdown",
  "rtcwake",
  "pm-suspend",
  "pm-hibernate",
  "pm-suspend-hybrid",
  "s2ram",
  "s2disk",
  "zzz",
  "ZZZ",
  "killall5",
  "systemd-hibernate",
]);

/** systemd units and verbs that stop, restart or suspend the machine or end the session. */
const powerUnit =
  /^(systemd-)?(poweroff|reboot|halt|kexec|emergency|rescue|suspend|hibernate|hybrid-sleep|suspend-then-hibernate|soft-reboot|sleep|exit|shutdown|ctrl-alt-del|final)(\.(target|service))?$/;

export function powerFinding(program: string, args: string[]): Finding | null {
  const deny = (why: string): Finding => ({ decision: "deny", rule: "hardline.power", reason: why });
  if (powerPrograms.has(program)) return deny(`${program} stops, suspends or restarts the machine`);
  if ((program === "init" || program === "telinit") && /^[0156sS]$/.test(args[0] ?? "")) {
    return deny(`${program} ${args[0]} changes the machine's run level`);
  }
  if (program === "kexec" && args.some((arg) => /^(-e|--exec|-f|--force)$/.test(arg))) {
    return deny("kexec boots another kernel");
  }
  if (program === "systemctl") {
    const verbs = args.filter((arg) => !arg.startsWith("-"));
    if (
      verbs.some((arg) => powerUnit.test(arg)) ||
      ["isolate", "default", "switch-root"].includes(verbs[0] ?? "")
    ) {
      return deny(`systemctl ${verbs.join(" ")} would stop, suspend or restart the machine`);
    }
  }
  if (
    program === "loginctl" &&
    args.some((arg) =>
      /^(poweroff|reboot|halt|suspend|hibernate|hybrid-sleep|suspend-then-hibernate|kill-session|kill-user|terminate-session|terminate-user|terminate-seat)$/.test(
        arg,
      ),
    )
  ) {
    return deny(`loginctl ${args.join(" ")} ends sessions or stops the machine`);
  }
  if (program === "pmset" && args.some((arg) => /^(sleepnow|shutdown|restart|displaysleepnow)$/.test(arg))) {
    return deny(`pmset ${args.join(" ")} puts the machine to sleep or restarts it`);
  }
  if (
    ["dbus-send", "busctl", "gdbus", "qdbus", "dbus-launch"].includes(program) &&
    args.some((arg) => /login1|org\.freedesktop\.(systemd1|UPower)|gnome\.SessionManager/i.test(arg)) &&
    args.some((arg) =>
      /PowerOff|Reboot|Halt|Suspend|Hibernate|KExec|Terminate|KillUser|KillSession|Shutdown|Logout/i.test(
        arg,
      ),
    )
  ) {
    return deny(`${program} asks the system bus to stop the machine or end sessions`);
  }
  if (program === "osascript" && args.some((arg) => /\b(shut\s*down|restart|sleep|log\s*out)\b/i.test(arg))) {
    return deny("osascript asks the system to shut down, restart or sleep");
  }
  if (
    program === "sysctl" &&
    args.some((arg) => arg === "-w" || arg === "--write" || /^[a-z_.]+=/.test(arg))
  ) {
    return {
      decision: "deny",
      rule: "hardline.system-write",
      reason: "sysctl writes kernel settings",
    };
  }
  return null;
}

const tracers = new Set([
  "gdb",
  "lldb",
  "gcore",
  "pstack",
  "eu-stack",
  "strace",
  "ltrace",
  "ptrace",
  "perf",
  "bpftrace",
]);

/** Attaching to another process reads its memory, where Mercury keeps its API keys. */
export function processMemoryFinding(program: string, args: string[]): Finding | null {
  const deny = (why: string): Finding => ({ decision: "deny", rule: "hardline.process-memory", reason: why });
  if (program === "gcore" || program === "pstack") return deny(`${program} dumps another process's memory`);
  if (tracers.has(program)) {
    const attaches = args.some(
      (arg, index) =>
        /^(-p|--pid|--attach|-pid|--process)(=.*)?$/.test(arg) ||
        /^-p\d+$/.test(arg) ||
        (program === "gdb" && (arg === "attach" || (index > 0 && /^\d+$/.test(arg)))) ||
        (program === "perf" && arg === "trace" && args.includes("-p")),
    );
    if (attaches)
      return deny(`${program} attaches to a running process and can read its memory and environment`);
  }
  if (program === "ps") {
    // BSD-style `ps e`, `ps auxe`, `ps eww` and macOS `ps -E` print every process's environment.
    if (
      args.some(
        (arg) => (!arg.startsWith("-") && /^[a-zA-Z]+$/.test(arg) && arg.includes("e")) || arg === "-E",
      )
    ) {
      return {
        decision: "deny",
        rule: "path.sensitive",
        reason: "ps with e/-E prints every process's environment (API keys)",
      };
    }
  }
  return null;
}
