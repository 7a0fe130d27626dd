import type { PermissionContext } from "./context.js";
import { absoluteComponents, checkPath, nodePathFs, type PathFs, resolveReal } from "./paths.js";
import { isDevice, isKernelPath, systemTreeOf } from "./system-paths.js";
import type { Decision } from "./types.js";

/**
 * The file tools' hardline (read_file, write_file, edit_file, delete_file, list_dir, search_files):
 * they run inside Mercury, not in the OS sandbox, so they hold their own line in every mode —
 * no device nodes, no /proc or /sys (process memory, kernel switches), no writes into system trees.
 * Checked on the path as written and on its real path, so a symlink cannot lead around it.
 */
export function checkFileToolPath(
  rawPath: string,
  access: "read" | "write",
  context: PermissionContext,
  fsApi: PathFs = nodePathFs,
): Decision {
  const base = checkPath(rawPath, access, context, fsApi);
  const candidates = [lexical(rawPath, context)];
  const resolved = resolveReal(rawPath, context.cwd, context.home, fsApi);
  if (resolved.ok) candidates.push(resolved.realPath);
  const stats = resolved.ok ? resolved.stats : null;
  const device = (path: string) => isDevice(path, path === candidates[candidates.length - 1] ? stats : null);
  // A raw disk is also a secret to checkPath; for file tools the device rule names it better.
  if (base.decision === "deny" && !candidates.some(device)) return base;
  const deny = (rule: string, reason: string): Decision => ({
    decision: "deny",
    rule,
    reason,
    subject: base.subject,
    ...(base.resolvedPath ? { resolvedPath: base.resolvedPath } : {}),
  });
  if (ownDescriptor(candidates[0] as string)) {
    return deny(
      "hardline.kernel-files",
      `${rawPath} is one of Mercury's own open file descriptors (its database, sockets, terminal); file tools never touch them`,
    );
  }
  for (const path of candidates) {
    if (isKernelPath(path)) {
      return deny(
        "hardline.kernel-files",
        `${rawPath} is under /proc or /sys (process memory and environments, kernel switches); file tools never touch them`,
      );
    }
    if (device(path)) {
      return deny(
        "hardline.device",
        `${rawPath} is a device node${path !== rawPath ? ` (${path})` : ""}; reading or writing it can leak or destroy a disk`,
      );
    }
    const tree = access === "write" ? systemTreeOf(path) : null;
    if (tree) {
      return deny("hardline.system-write", `writing ${rawPath} changes system files under ${tree}`);
    }
  }
  return base;
}

/** `/dev/fd/N`, `/dev/stdin`: in a file tool these are Mercury's own descriptors, not a file of the task. */
function ownDescriptor(path: string): boolean {
  return path === "/dev/fd" || path.startsWith("/dev/fd/") || /^\/dev\/std(in|out|err)$/.test(path);
}

function lexical(rawPath: string, context: PermissionContext): string {
  return `/${absoluteComponents(rawPath, context).join("/")}`;
}
