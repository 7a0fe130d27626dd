import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { decideNetwork } from "../permissions/decide.js";
import { type Resolver, resolvePublicAddress } from "../permissions/network.js";
import { fetchFollowing } from "../tools/web-fetch-page.js";
import { type ArchiveFile, maxArchiveEntries, maxUnpackedBytes, readTarGz } from "./archive.js";
import { cloneSkillRepository } from "./git-clone.js";
import { parseSkillText } from "./parse.js";
import { type ScanFinding, scanSkillFiles } from "./scan.js";
import { SkillError, type SkillService } from "./service.js";
import { isValidSkillName, type Skill } from "./types.js";

export interface InstallSourceOptions {
  /** Who asked: only "owner" may install (never a Telegram member). */
  requestedBy: string;
  signal: AbortSignal;
  /** DNS resolver for the download (tests inject one). */
  resolver?: Resolver;
  /** Exact loopback address:port pairs a test server may use; everything else must be public. */
  allowForTests?: { address: string; port: number }[];
  /** Tests only: allow http:// archives (their server has no TLS certificate). */
  allowHttpForTests?: boolean;
  timeoutMs?: number;
}

/** A skill read and checked, not yet written anywhere discovery looks. */
export interface StagedSkill {
  skill: Skill;
  files: ArchiveFile[];
  totalBytes: number;
  /** Files a reader should look at before trusting them: scripts/ and anything with a shebang. */
  scripts: string[];
  findings: ScanFinding[];
  source: string;
}

const maxDownloadBytes = 10 * 1024 * 1024;
const skippedFolders = new Set([".git", "node_modules"]);

/** Reads a skill from a folder, a git URL or an https URL of a .tar.gz, and scans it. Writes nothing. */
export async function stageSkill(source: string, options: InstallSourceOptions): Promise<StagedSkill> {
  if (options.requestedBy !== "owner") {
    throw new SkillError(`only the owner may install skills (asked by ${options.requestedBy})`);
  }
  let files: ArchiveFile[];
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || source.startsWith("git@")) {
    const url = parseSourceUrl(source, options);
    files = isGitUrl(url) ? await cloneGit(url, options) : readTarGz(await download(url, options));
  } else {
    files = readFolder(resolve(source));
  }
  return examine(files, source);
}

function parseSourceUrl(source: string, options: InstallSourceOptions): URL {
  if (source.startsWith("git@"))
    throw new SkillError("ssh git URLs are not supported; use the https:// URL of the repository", true);
  let url: URL;
  try {
    url = new URL(source.replace(/^git\+/, ""));
  } catch {
    throw new SkillError(`"${source}" is not a valid URL`, true);
  }
  const httpAllowed = options.allowHttpForTests === true && url.protocol === "http:";
  if (url.protocol !== "https:" && !httpAllowed) {
    throw new SkillError(
      `only https:// URLs can be installed from, not ${url.protocol} (a download must be authenticated)`,
      true,
    );
  }
  if (url.username || url.password)
    throw new SkillError("URLs with credentials are refused; credentials do not belong in URLs", true);
  const verdict = decideNetwork(url.href);
  if (verdict.decision !== "allow")
    throw new SkillError(`refused by the network rules (${verdict.rule}): ${verdict.reason}`);
  return url;
}

function isGitUrl(url: URL): boolean {
  return (
    url.pathname.endsWith(".git") ||
    (/^(github\.com|gitlab\.com|codeberg\.org|bitbucket\.org)$/i.test(url.hostname) &&
      !/\.(tar\.gz|tgz)$/i.test(url.pathname))
  );
}

/** The archive download: the same SSRF guard and pinned connection as web_fetch. */
async function download(url: URL, options: InstallSourceOptions): Promise<Buffer> {
  if (!/\.(tar\.gz|tgz)$/i.test(url.pathname)) {
    throw new SkillError(
      `${url.href} is not a .tar.gz or .tgz archive (or a git repository URL ending in .git)`,
      true,
    );
  }
  const controller = new AbortController();
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timer = setTimeout(() => controller.abort(new Error("download time limit")), timeoutMs);
  const onAbort = () => controller.abort(options.signal.reason);
  options.signal.addEventListener("abort", onAbort, { once: true });
  try {
    const page = await fetchFollowing(
      url.href,
      async (hop) => {
        const decision = decideNetwork(hop);
        if (decision.decision !== "allow")
          return { allowed: false, rule: decision.rule, reason: decision.reason };
        if (!hop.startsWith("https:") && !options.allowHttpForTests) {
          return {
            allowed: false,
            rule: "skills.install-https",
            reason: "a redirect to plain http is refused",
          };
        }
        return { allowed: true, rule: decision.rule };
      },
      controller.signal,
      [],
      {
        resolver: options.resolver,
        allowForTests: options.allowForTests,
        maxBytes: maxDownloadBytes,
        maxRedirects: 5,
      },
    );
    if (page.status !== 200) throw new SkillError(`${url.href} answered ${page.status} ${page.statusText}`);
    if (page.cut) throw new SkillError(`${url.href} is larger than ${maxDownloadBytes} bytes`);
    return page.body;
  } catch (error) {
    if (error instanceof SkillError) throw error;
    if (controller.signal.aborted && !options.signal.aborted)
      throw new SkillError(`${url.href} did not finish within ${timeoutMs} ms`);
    throw new SkillError(`download failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
  }
}

/**
 * The host is checked by the SSRF guard first; git then resolves it again itself (it cannot be
 * pinned), and redirects are refused. The clone itself is bounded and never checked out (git-clone.ts).
 */
async function cloneGit(url: URL, options: InstallSourceOptions): Promise<ArchiveFile[]> {
  try {
    await resolvePublicAddress(url.hostname, {
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
  } catch (error) {
    throw new SkillError(error instanceof Error ? error.message : String(error));
  }
  return cloneSkillRepository(url.href, {
    signal: options.signal,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/** Reads a folder's files; a symbolic link anywhere refuses it (it could point at a secret). */
export function readFolder(root: string): ArchiveFile[] {
  const files: ArchiveFile[] = [];
  let total = 0;
  const walk = (folder: string) => {
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch (error) {
      throw new SkillError(
        `cannot read ${folder}: ${error instanceof Error ? error.message : String(error)}`,
        true,
      );
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isSymbolicLink())
        throw new SkillError(
          `${relative(root, path)} is a symbolic link; skills may only contain files and folders`,
        );
      if (entry.isDirectory()) {
        if (!skippedFolders.has(entry.name)) walk(path);
        continue;
      }
      if (!entry.isFile()) throw new SkillError(`${relative(root, path)} is not a regular file`);
      total += lstatSync(path).size;
      if (total > maxUnpackedBytes) throw new SkillError(`more than ${maxUnpackedBytes} bytes of files`);
      if (files.length >= maxArchiveEntries) throw new SkillError(`more than ${maxArchiveEntries} files`);
      files.push({ path: relative(root, path).split(sep).join("/"), data: readFileSync(path) });
    }
  };
  walk(root);
  return files;
}

/** Finds the one SKILL.md (at the top or in one folder), validates the name strictly, scans. */
function examine(all: ArchiveFile[], source: string): StagedSkill {
  const manifests = all.filter((file) => file.path === "SKILL.md" || file.path.endsWith("/SKILL.md"));
  if (manifests.length === 0) throw new SkillError(`${source} holds no SKILL.md`);
  const top = manifests.filter((file) => file.path.split("/").length <= 2);
  if (top.length !== 1) {
    throw new SkillError(
      `${source} holds ${manifests.length} skills (${manifests.map((m) => m.path).join(", ")}); install them one folder at a time`,
    );
  }
  const manifest = top[0] as ArchiveFile;
  const prefix = manifest.path === "SKILL.md" ? "" : `${dirname(manifest.path)}/`;
  const files = all
    .filter((file) => file.path.startsWith(prefix))
    .map((file) => ({ path: file.path.slice(prefix.length), data: file.data }));
  const text = manifest.data.toString("utf8");
  const declared = /^name:\s*["']?([^"'\n]*)["']?\s*$/m.exec(text)?.[1]?.trim() ?? "";
  // The name becomes a folder name: it is validated before any path is built from it.
  if (!isValidSkillName(declared)) {
    throw new SkillError(
      `the skill's name ${JSON.stringify(declared)} is invalid: a name is 1–64 of a-z, 0-9 and single hyphens (it becomes a folder name)`,
    );
  }
  const parsed = parseSkillText(text, "SKILL.md", `/${declared}`, "mercury");
  if (!parsed.ok) throw new SkillError(`SKILL.md cannot be used: ${parsed.problem.reason}`);
  if (parsed.skill.name !== declared)
    throw new SkillError(`the skill's name ${JSON.stringify(declared)} is invalid`);
  const scripts = files
    .filter((file) => file.path.startsWith("scripts/") || file.data.subarray(0, 2).toString() === "#!")
    .map((file) => file.path);
  return {
    skill: parsed.skill,
    files,
    totalBytes: files.reduce((sum, file) => sum + file.data.length, 0),
    scripts,
    findings: scanSkillFiles(files),
    source,
  };
}

/**
 * Writes a staged skill to `$MERCURY_HOME/skills/<name>/` (files never executable: scripts run
 * through run_command). Refused when the scan found something and `force` is not given.
 */
export function commitSkill(
  service: SkillService,
  staged: StagedSkill,
  options: { force: boolean },
): { directory: string; version: number } {
  if (staged.findings.length > 0 && !options.force) {
    throw new SkillError(
      `the scan found ${staged.findings.length} problem(s); read them and install with --force only if you trust this skill`,
    );
  }
  const target = dirname(service.skillFile(staged.skill.name));
  try {
    lstatSync(target);
    throw new SkillError(
      `a skill named "${staged.skill.name}" is already installed in ${target}; \`mercury skills remove ${staged.skill.name}\` first`,
    );
  } catch (error) {
    if (error instanceof SkillError) throw error;
  }
  let skillText = "";
  mkdirSync(target, { recursive: true });
  for (const file of staged.files) {
    const path = resolve(target, file.path);
    if (!path.startsWith(target + sep))
      throw new SkillError(`${file.path} would be written outside the skill folder`);
    if (file.path === "SKILL.md") {
      skillText = file.data.toString("utf8");
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.data, { mode: 0o644, flag: "wx" });
  }
  const version = service.writeSkill(staged.skill.name, skillText, `installed from ${staged.source}`);
  return { directory: target, version };
}
