import { spawn } from "node:child_process";
import { type Dirent, lstatSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ArchiveFile, maxArchiveEntries, maxUnpackedBytes, safeRelative } from "./archive.js";
import { SkillError } from "./service.js";

/**
 * A skill's git repository, read without trusting it. The clone is bare (no checkout: no filters,
 * no attributes, no hooks, no submodules, no symbolic links written to disk), its pack is kept as
 * one file (transfer.unpackLimit=1) under a file-size limit, so a repository that is huge or
 * decompresses into gigabytes stops git instead of filling the disk. The tree is then listed with
 * sizes and only regular files are read, from git's object store, after the totals are checked.
 */

/** The pack git may write: a skill is text and a few small files (the unpacked limit plus headroom). */
export const maxPackBytes = 2 * maxUnpackedBytes;
const skippedFolders = new Set([".git", "node_modules"]);

export interface CloneOptions {
  signal: AbortSignal;
  timeoutMs?: number;
  /** Transports git may use; only https for real installs (tests use file). */
  protocols?: readonly string[];
  /** Tests only: a smaller pack limit. */
  maxPackBytes?: number;
  /** Tests only: a smaller limit on the files' listed sizes. */
  maxUnpackedBytes?: number;
}

/** Fetches `href`'s HEAD into a bare temporary repository, reads the files at HEAD, removes the folder. */
export async function cloneSkillRepository(href: string, options: CloneOptions): Promise<ArchiveFile[]> {
  const folder = mkdtempSync(join(tmpdir(), "mercury-skill-"));
  const repository = join(folder, "repo.git");
  try {
    const protocols = options.protocols ?? ["https"];
    const packBlocks = Math.ceil((options.maxPackBytes ?? maxPackBytes) / 512);
    // init + fetch rather than clone: a failed clone deletes its folder, and with it the evidence
    // that the pack reached the limit (git reports index-pack's SIGXFSZ only as bad output).
    await runGit(folder, ["init", "-q", "--bare", "--template=", repository], options);
    await runGit(
      repository,
      [
        "-c",
        "http.followRedirects=false",
        "-c",
        "protocol.allow=never",
        ...protocols.flatMap((protocol) => ["-c", `protocol.${protocol}.allow=always`]),
        "-c",
        "transfer.unpackLimit=1",
        "-c",
        "fetch.unpackLimit=1",
        "fetch",
        "-q",
        "--depth",
        "1",
        "--no-tags",
        "--",
        href,
        "HEAD",
      ],
      options,
      packBlocks,
    ).catch((error: unknown) => {
      if (reachedLimit(repository, packBlocks * 512))
        throw new SkillError(
          `the repository is larger than ${Math.round((packBlocks * 512) / 1024)} KiB; a skill is text and a few small files`,
        );
      throw error;
    });
    return await readRepositoryFiles(repository, options, "FETCH_HEAD");
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

interface TreeEntry {
  mode: string;
  type: string;
  id: string;
  size: number;
  path: string;
}

/** True when a file under `folder` reached `bytes` (the file-size limit stopped git there). */
function reachedLimit(folder: string, bytes: number): boolean {
  const walk = (path: string): boolean => {
    let entries: Dirent[];
    try {
      entries = readdirSync(path, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
      throw error;
    }
    return entries.some((entry) => {
      const child = join(path, entry.name);
      if (entry.isDirectory()) return walk(child);
      return entry.isFile() && lstatSync(child).size >= bytes;
    });
  };
  return walk(folder);
}

/** Lists HEAD's tree (NUL-separated: any byte in a name is data) and reads its regular files. */
export async function readRepositoryFiles(
  repository: string,
  options: CloneOptions,
  revision = "HEAD",
): Promise<ArchiveFile[]> {
  const listing = await runGit(repository, ["ls-tree", "-r", "-l", "-z", "--full-tree", revision], options);
  const entries: TreeEntry[] = [];
  let total = 0;
  for (const line of listing.toString("utf8").split("\0")) {
    if (line === "") continue;
    const match = /^(\d{6}) (\w+) ([0-9a-f]+) +(-|\d+)\t([\s\S]+)$/.exec(line);
    if (!match) throw new SkillError(`git listed an entry Mercury cannot read: ${JSON.stringify(line)}`);
    const [, mode = "", type = "", id = "", size = "", rawPath = ""] = match;
    const path = safeRelative(rawPath);
    if (path.split("/").some((part) => skippedFolders.has(part))) continue;
    if (mode === "120000")
      throw new SkillError(`${path} is a symbolic link; skills may only contain files and folders`);
    if (mode === "160000")
      throw new SkillError(`${path} is a submodule; skills may only contain files and folders`);
    if (type !== "blob" || (mode !== "100644" && mode !== "100755"))
      throw new SkillError(`${path} is not a regular file (git mode ${mode})`);
    total += Number(size);
    const limit = options.maxUnpackedBytes ?? maxUnpackedBytes;
    if (total > limit) throw new SkillError(`more than ${limit} bytes of files`);
    if (entries.length >= maxArchiveEntries) throw new SkillError(`more than ${maxArchiveEntries} files`);
    entries.push({ mode, type, id, size: Number(size), path });
  }
  if (entries.length === 0) return [];
  const output = await runGit(
    repository,
    ["cat-file", "--batch"],
    options,
    undefined,
    entries.map((entry) => `${entry.id}\n`).join(""),
  );
  const files: ArchiveFile[] = [];
  let offset = 0;
  for (const entry of entries) {
    const headerEnd = output.indexOf(0x0a, offset);
    const header = output.subarray(offset, headerEnd).toString("utf8");
    if (header !== `${entry.id} blob ${entry.size}`)
      throw new SkillError(`git answered "${header}" for ${entry.path}`);
    const start = headerEnd + 1;
    files.push({ path: entry.path, data: Buffer.from(output.subarray(start, start + entry.size)) });
    offset = start + entry.size + 1;
  }
  return files;
}

/**
 * Runs git with nothing of the user's: no system or global config, no inherited GIT_* variables,
 * no prompt. `fileBlocks` caps every file git writes (RLIMIT_FSIZE via the shell's ulimit).
 */
function runGit(
  cwd: string,
  args: string[],
  options: CloneOptions,
  fileBlocks?: number,
  input?: string,
): Promise<Buffer> {
  const limit = fileBlocks === undefined ? "" : `ulimit -f ${fileBlocks} && `;
  return new Promise<Buffer>((resolvePromise, reject) => {
    const child = spawn("/bin/sh", ["-c", `${limit}exec git "$@"`, "sh", ...args], {
      cwd,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_TERMINAL_PROMPT: "0",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
        HOME: cwd,
      },
      stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      signal: options.signal,
      timeout: options.timeoutMs ?? 120_000,
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      // The listing and the files were bounded before reading; this is a backstop.
      if (outBytes > maxUnpackedBytes + 1024 * 1024) child.kill("SIGKILL");
      else out.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    if (input !== undefined) child.stdin?.end(input);
    child.on("error", (error) => reject(new SkillError(`could not run git: ${error.message}`)));
    child.on("close", (code, signal) => {
      if (code === 0) return resolvePromise(Buffer.concat(out));
      const command = args.find((arg) => !arg.startsWith("-") && !arg.includes("=")) ?? "";
      reject(
        new SkillError(`git ${command} failed (${signal ?? `exit ${code}`}): ${stderr.trim().slice(-500)}`),
      );
    });
  });
}
