import { constants } from "node:fs";
import { type FileHandle, open, readlink } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { isEnvFile, sensitiveMatch } from "../permissions/sensitive.js";
import type { ToolContext } from "./types.js";

/** `checked`: the engine resolved the path itself, so the final component must not be a symlink now. */
export type PathAuthorization = { ok: true; path: string; checked: boolean } | { ok: false; error: string };

/** Makes a model-supplied path absolute: relative to the task's cwd, with a leading `~` meaning home. */
export function absolutePath(raw: string, cwd: string): string {
  if (raw === "~") return homedir();
  if (raw.startsWith("~/")) return join(homedir(), raw.slice(2));
  return isAbsolute(raw) ? resolve(raw) : resolve(cwd, raw);
}

/**
 * Asks the permission engine before any file access. The engine's `resolvedPath` (after realpath) is
 * what the tool must act on, so a symlink swapped in between check and use cannot redirect it.
 */
export async function authorizePath(
  context: ToolContext,
  raw: string,
  access: "read" | "write",
): Promise<PathAuthorization> {
  const path = absolutePath(raw, context.cwd);
  const decision = await context.authorize({ kind: "path", path, access });
  if (!decision.allowed) {
    return {
      ok: false,
      error: `Permission denied: ${access} access to ${path} was refused (${decision.rule}): ${decision.reason}`,
    };
  }
  return { ok: true, path: decision.resolvedPath ?? path, checked: decision.resolvedPath !== undefined };
}

/**
 * Open flags for overwriting a checked path: with O_NOFOLLOW a symlink swapped in after the engine's
 * realpath check makes the write fail instead of landing outside the allowed roots.
 */
export function writeFlags(access: { checked: boolean }): number {
  const base = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC;
  return access.checked ? base | constants.O_NOFOLLOW : base;
}

/** The file opened is not the one the engine checked: a folder on the way was swapped for a link. */
export class PathMovedError extends Error {
  override name = "PathMovedError";
}

/**
 * Opens a checked path and proves that the file opened is the one the engine checked. O_NOFOLLOW
 * guards only the last component: a sandboxed command (a background loop) can swap a folder on the
 * way for a symbolic link between the check and the open, and the open then follows it out of the
 * allowed roots (~/.ssh). On Linux the kernel's own name for the opened file (/proc/self/fd/N) must
 * be the checked path; no byte is read or written before that. Callers then use the handle, or
 * `/proc/self/fd/N` as a path, never the name again. Without O_TRUNC: a refused open truncates nothing.
 */
export async function openVerified(
  access: { path: string; checked: boolean },
  flags: number,
): Promise<FileHandle> {
  const handle = await open(access.path, access.checked ? flags | constants.O_NOFOLLOW : flags);
  if (process.platform !== "linux" || !access.checked) return handle;
  let opened: string;
  try {
    opened = await readlink(`/proc/self/fd/${handle.fd}`);
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (opened !== access.path) {
    await handle.close();
    throw new PathMovedError(
      `${access.path} now leads to ${opened}: a folder on its path was replaced by a link after the permission check; refused`,
    );
  }
  return handle;
}

/** Turns a filesystem error into a sentence the model can act on. */
export function describeFsError(error: unknown, path: string): string {
  if (error instanceof PathMovedError) return error.message;
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  switch (code) {
    case "ENOENT":
      return `${path} does not exist. Check the path with list_dir or search_files.`;
    case "EACCES":
    case "EPERM":
      return `The operating system refused access to ${path} (${code}).`;
    case "EISDIR":
      return `${path} is a directory, not a file. Use list_dir to see what it contains.`;
    case "ELOOP":
      return `${path} became a symbolic link after the permission check; refused to follow it.`;
    case "ENOTDIR":
      return `A component of ${path} is not a directory.`;
    default:
      return `Could not access ${path}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export function abortedResult(): { ok: false; error: string } {
  return { ok: false, error: "Cancelled: the task was aborted before the tool finished." };
}

/**
 * For entries met while walking a tree the engine approved as a whole (search_files, list_dir depth):
 * asking the engine about each of thousands of files would flood approvals and the audit log, so the
 * walk skips what the engine would refuse or ask about anyway — secrets paths and `.env` files — and
 * says it did. Returns why the entry is skipped, or null.
 */
export function walkSkipReason(path: string, mercuryHome: string): string | null {
  const match = sensitiveMatch(path, homedir(), mercuryHome);
  if (match) return match.what;
  if (isEnvFile(path)) return "an environment file that may hold secrets";
  return null;
}
