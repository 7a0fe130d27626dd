import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Launch } from "./types.js";

/**
 * A seccomp filter for the sandbox (bwrap `--seccomp FD`), closing what namespaces do not:
 *
 * - The kernel keyrings (`keyctl`, `add_key`, `request_key`). bwrap gives no keyring of its own: the
 *   command possesses Mercury's session keyring, and run by root it shares root's user keyring with
 *   the host (seen in session 8: the same keyring ids inside and out). Keys there are credentials
 *   (Kerberos tickets, ecryptfs and NFS keys, tokens stored with `keyctl`), and a command could read,
 *   link or replace them.
 * - Typing into a terminal (`ioctl` TIOCSTI, TIOCLINUX): `--new-session` already leaves the command
 *   without a controlling terminal; this keeps it so for a terminal descriptor it got some other way.
 *
 * - Kernel interfaces that are exploit surface and that ordinary commands do without (session 11):
 *   io_uring (`io_uring_setup`/`enter`/`register`: a long run of privilege-escalation bugs; allowed by
 *   this machine's `kernel.io_uring_disabled=0`; libuv and others fall back to threads on EPERM),
 *   `userfaultfd` (pauses the kernel on a page fault: the tool that makes kernel races winnable;
 *   allowed in user mode whatever `vm.unprivileged_userfaultfd` says), `perf_event_open` (allowed for
 *   one's own processes at `perf_event_paranoid` 2; a profiler is not part of a task) and `bpf`.
 *
 * Each is refused with EPERM, as Docker's default profile does; everything else is allowed. The
 * filter is classic BPF for this machine's architecture (x86-64 with its i386 compatibility calls,
 * and the x32 ABI refused; arm64 with its 32-bit arm calls); on another architecture there is none.
 */
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO_EPERM = 0x00050000 | 1;
const TIOCSTI = 0x5412;
const TIOCLINUX = 0x541c;

interface ArchitectureCalls {
  audit: number;
  /** keyctl, add_key, request_key, then io_uring ×3, userfaultfd, perf_event_open, bpf. */
  refused: number[];
  ioctl: number;
}

const architectures: Record<string, ArchitectureCalls[]> = {
  // x86-64 (keyctl 250, add_key 248, request_key 249, io_uring 425-427, userfaultfd 323,
  // perf_event_open 298, bpf 321, ioctl 16) and i386 through int 0x80.
  x64: [
    { audit: 0xc000003e, refused: [248, 249, 250, 425, 426, 427, 323, 298, 321], ioctl: 16 },
    { audit: 0x40000003, refused: [286, 287, 288, 425, 426, 427, 374, 336, 357], ioctl: 54 },
  ],
  // arm64 (add_key 217, request_key 218, keyctl 219, io_uring 425-427, userfaultfd 282,
  // perf_event_open 241, bpf 280, ioctl 29) and 32-bit arm.
  arm64: [
    { audit: 0xc00000b7, refused: [217, 218, 219, 425, 426, 427, 282, 241, 280], ioctl: 29 },
    { audit: 0x40000028, refused: [309, 310, 311, 425, 426, 427, 388, 364, 386], ioctl: 54 },
  ],
};

type Instruction = { code: number; k: number; jt?: string; jf?: string; label?: string };

/** The filter program (struct sock_filter[], little-endian) for `arch`, or null when unknown. */
export function seccompProgram(arch: string = process.arch): Buffer | null {
  const calls = architectures[arch];
  if (!calls) return null;
  const load = (offset: number): Instruction => ({ code: 0x20, k: offset }); // BPF_LD|BPF_W|BPF_ABS
  const equals = (k: number, jt: string, jf?: string): Instruction => ({
    code: 0x15,
    k,
    jt,
    ...(jf ? { jf } : {}),
  });
  const program: Instruction[] = [load(4)]; // seccomp_data.arch
  for (const [index, architecture] of calls.entries())
    program.push(equals(architecture.audit, `arch${index}`));
  program.push({ code: 0x06, k: SECCOMP_RET_ALLOW });
  for (const [index, architecture] of calls.entries()) {
    program.push({ ...load(0), label: `arch${index}` }); // seccomp_data.nr
    // The x32 ABI (x86-64 numbers with bit 30 set) has keyctl under other numbers: refused whole.
    if (architecture.audit === 0xc000003e) program.push({ code: 0x35, k: 0x40000000, jt: "deny" });
    for (const call of architecture.refused) program.push(equals(call, "deny"));
    program.push(equals(architecture.ioctl, "ioctl"));
    program.push({ code: 0x06, k: SECCOMP_RET_ALLOW });
  }
  // The ioctl request is args[1]; its low 32 bits are at offset 24 on little-endian machines.
  program.push({ ...load(24), label: "ioctl" });
  program.push(equals(TIOCSTI, "deny"));
  program.push(equals(TIOCLINUX, "deny"));
  program.push({ code: 0x06, k: SECCOMP_RET_ALLOW });
  program.push({ code: 0x06, k: SECCOMP_RET_ERRNO_EPERM, label: "deny" });
  return assemble(program);
}

function assemble(program: Instruction[]): Buffer {
  const labels = new Map<string, number>();
  program.forEach((instruction, index) => {
    if (instruction.label) labels.set(instruction.label, index);
  });
  const offset = (from: number, label: string | undefined): number => {
    if (label === undefined) return 0;
    const target = labels.get(label);
    if (target === undefined || target <= from || target - from - 1 > 255)
      throw new Error(`seccomp program: bad jump to ${label}`);
    return target - from - 1;
  };
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    bytes.writeUInt16LE(instruction.code, index * 8);
    bytes.writeUInt8(offset(index, instruction.jt), index * 8 + 2);
    bytes.writeUInt8(offset(index, instruction.jf), index * 8 + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return bytes;
}

let filterFile: string | null | undefined;

/** The filter written once per process to a private folder (removed at exit), or null. */
function seccompFile(): string | null {
  if (filterFile !== undefined) return filterFile;
  const program = seccompProgram();
  if (!program) {
    filterFile = null;
    return null;
  }
  const folder = mkdtempSync(join(tmpdir(), "mercury-seccomp-"));
  const file = join(folder, "filter.bpf");
  writeFileSync(file, program, { mode: 0o400 });
  process.once("exit", () => rmSync(folder, { recursive: true, force: true }));
  filterFile = file;
  return file;
}

/** The fd bwrap reads the filter from: a single digit, so dash can open it. */
const FILTER_FD = 9;

/**
 * `launch` (bwrap and its arguments) entered through a shell that closes the descriptors Mercury
 * inherited from its own parent (inheritedDescriptors), opens the filter file on fd 9 and execs bwrap
 * with `--seccomp 9` (bwrap reads it and closes it before the command starts). `keep` are descriptors
 * the launcher hands bwrap on purpose (the filtered network's resolv.conf on fd 5).
 */
export function sandboxEntry(launch: Launch, keep: readonly number[] = []): Launch {
  const file = seccompFile();
  const close = inheritedDescriptors().filter((fd) => fd !== FILTER_FD && !keep.includes(fd));
  const redirections = [...close.map((fd) => `${fd}<&-`), ...(file ? [`${FILTER_FD}<"$0"`] : [])];
  if (redirections.length === 0) return launch;
  // dash, the usual /bin/sh, names descriptors 0-9 only; bash any.
  const shell = close.some((fd) => fd > 9) ? bashPath() : "/bin/sh";
  if (!shell) {
    process.emitWarning(
      `mercury: descriptors ${close.join(", ")} inherited from Mercury's parent stay open in the sandbox (no bash to close them; start Mercury without them)`,
    );
    return sandboxEntry(launch, [...keep, ...close.filter((fd) => fd > 9)]);
  }
  const seccomp = file ? ["--seccomp", String(FILTER_FD)] : [];
  return {
    file: shell,
    args: ["-c", `exec "$@" ${redirections.join(" ")}`, file ?? "-", launch.file, ...seccomp, ...launch.args],
  };
}

/**
 * Descriptors of this process that a child inherits: open without close-on-exec. Node opens all of
 * its own with close-on-exec, so these came from whoever started Mercury (an editor, a supervisor, a
 * test runner) and would reach every sandboxed command (bwrap keeps what it is given): a pipe back to
 * that parent, a file it had open. Read from /proc/self/fdinfo (flags in octal; O_CLOEXEC 02000000).
 */
export function inheritedDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    // No /proc (not Linux): bwrap is not used there.
    return [];
  }
  const inherited: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${name}`, "utf8");
    } catch {
      // Closed between the listing and the read (readdir's own descriptor): nothing to close.
      continue;
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (Number.parseInt(flags, 8) & 0o2000000) === 0) inherited.push(fd);
  }
  return inherited;
}

function bashPath(): string | null {
  for (const candidate of ["/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"])
    if (existsSync(candidate)) return candidate;
  return null;
}
