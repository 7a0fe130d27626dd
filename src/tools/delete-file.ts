import { cp, lstat, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { z } from "zod";
import { homePaths } from "../config/paths.js";
import {
  abortedResult,
  absolutePath,
  authorizePath,
  describeFsError,
  type PathAuthorization,
} from "./authorize-path.js";
import type { ToolContext, ToolDefinition } from "./types.js";

const inputSchema = z.object({
  path: z
    .string()
    .min(1)
    .describe("File or directory to delete, absolute or relative to the working directory."),
});

export type DeleteFileInput = z.infer<typeof inputSchema>;

const manifestSchema = z.object({
  trashName: z.string().min(1),
  originalPath: z.string().min(1),
  kind: z.enum(["file", "directory", "symlink"]),
  trashedAt: z.string(),
  taskId: z.string(),
  sessionId: z.string(),
});

export type TrashManifest = z.infer<typeof manifestSchema>;

/** Manifests live beside the trashed items, in a folder a trashed file name can never collide with. */
function manifestDir(home: string): string {
  return join(homePaths(home).trash, ".manifests");
}

export const deleteFileTool: ToolDefinition<DeleteFileInput> = {
  name: "delete_file",
  description:
    "Delete a file or directory by moving it to Mercury's trash (restorable by the user). Symlinks are removed " +
    "themselves, never their target. Replies with where the item went.",
  inputSchema,
  mutating: true,
  async execute(input, context) {
    const access = await authorizeDeletion(context, input.path);
    if (!access.ok) return access;
    const path = access.path;
    const trash = homePaths(context.home).trash;
    if (path === trash || path.startsWith(`${trash}/`)) {
      return {
        ok: false,
        error: `${path} is inside Mercury's trash; items there are only removed by the user.`,
      };
    }
    try {
      const info = await lstat(path);
      if (context.signal.aborted) return abortedResult();
      const kind = info.isSymbolicLink() ? "symlink" : info.isDirectory() ? "directory" : "file";
      const manifest = await moveToTrash(context.home, path, kind, context);
      return {
        ok: true,
        output: `Moved ${kind} ${path} to the trash as ${manifest.trashName} (the user can restore it from there).`,
      };
    } catch (error) {
      if (context.signal.aborted) return abortedResult();
      return { ok: false, error: describeFsError(error, path) };
    }
  },
};

/**
 * Deleting a symlink removes the link, so the engine must judge the folder holding the link, not the
 * link's target (which is what resolving the link itself would check, and then move).
 */
async function authorizeDeletion(context: ToolContext, raw: string): Promise<PathAuthorization> {
  const absolute = absolutePath(raw, context.cwd);
  let isLink = false;
  try {
    isLink = (await lstat(absolute)).isSymbolicLink();
  } catch (error) {
    if (!(typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT")) {
      return { ok: false, error: describeFsError(error, absolute) };
    }
  }
  if (!isLink) return authorizePath(context, absolute, "write");
  const parent = await authorizePath(context, dirname(absolute), "write");
  if (!parent.ok) return parent;
  return { ok: true, path: join(parent.path, basename(absolute)), checked: parent.checked };
}

async function moveToTrash(
  home: string,
  path: string,
  kind: TrashManifest["kind"],
  context: { taskId: string; sessionId: string },
): Promise<TrashManifest> {
  const trash = homePaths(home).trash;
  await mkdir(manifestDir(home), { recursive: true });
  const trashedAt = new Date();
  const stamp = trashedAt.toISOString().replace(/[-:.]/g, "");
  let trashName = `${stamp}-${basename(path)}`;
  for (let n = 2; await exists(join(trash, trashName)); n++) trashName = `${stamp}-${n}-${basename(path)}`;
  const manifest: TrashManifest = {
    trashName,
    originalPath: path,
    kind,
    trashedAt: trashedAt.toISOString(),
    taskId: context.taskId,
    sessionId: context.sessionId,
  };
  // Manifest first: an item in the trash without one could not be put back.
  const manifestPath = join(manifestDir(home), `${trashName}.json`);
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  try {
    await moveAcrossDevices(path, join(trash, trashName));
  } catch (error) {
    await rm(manifestPath, { force: true });
    throw error;
  }
  return manifest;
}

/** rename() fails across filesystems (EXDEV); then copy and remove the original. */
async function moveAcrossDevices(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if (!(typeof error === "object" && error !== null && "code" in error && error.code === "EXDEV"))
      throw error;
    await cp(from, to, {
      recursive: true,
      verbatimSymlinks: true,
      preserveTimestamps: true,
      errorOnExist: true,
    });
    await rm(from, { recursive: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT")
      return false;
    throw error;
  }
}

/** Everything in the trash, newest first. A manifest that cannot be parsed is an error, not skipped. */
export async function listTrash(home: string): Promise<TrashManifest[]> {
  let names: string[];
  try {
    names = await readdir(manifestDir(home));
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") return [];
    throw error;
  }
  const manifests: TrashManifest[] = [];
  for (const name of names.filter((n) => n.endsWith(".json"))) {
    manifests.push(await readManifest(home, name.slice(0, -".json".length)));
  }
  return manifests.sort((a, b) => b.trashedAt.localeCompare(a.trashedAt));
}

async function readManifest(home: string, trashName: string): Promise<TrashManifest> {
  const file = join(manifestDir(home), `${trashName}.json`);
  let raw: string;
  try {
    raw = await readFile(file, "utf8");
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") {
      throw new Error(`Nothing named ${trashName} is in the trash. See listTrash for what is there.`);
    }
    throw error;
  }
  const parsed = manifestSchema.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(`The trash manifest ${file} is damaged: ${parsed.error.message}`);
  return parsed.data;
}

/**
 * Puts a trashed item back where it was. Refuses to overwrite something that now exists there unless
 * `overwrite` is set (the existing item is then trashed itself, so nothing is lost). User-driven: it
 * does not go through the model's permission context.
 */
export async function restoreFromTrash(
  home: string,
  trashName: string,
  options: { overwrite?: boolean } = {},
): Promise<TrashManifest> {
  if (trashName.includes("/") || trashName.startsWith("."))
    throw new Error(`Invalid trash name: ${trashName}`);
  const manifest = await readManifest(home, trashName);
  const source = join(homePaths(home).trash, trashName);
  if (!(await exists(source))) {
    throw new Error(
      `The trashed item ${source} is missing; its manifest says it came from ${manifest.originalPath}.`,
    );
  }
  if (await exists(manifest.originalPath)) {
    if (!options.overwrite) {
      throw new Error(
        `${manifest.originalPath} exists again; restoring would overwrite it. Move it away or restore with overwrite.`,
      );
    }
    const kind = (await lstat(manifest.originalPath)).isDirectory() ? "directory" : "file";
    await moveToTrash(home, manifest.originalPath, kind, { taskId: "restore", sessionId: "restore" });
  }
  await mkdir(dirname(manifest.originalPath), { recursive: true });
  await moveAcrossDevices(source, manifest.originalPath);
  await rm(join(manifestDir(home), `${trashName}.json`));
  return manifest;
}
