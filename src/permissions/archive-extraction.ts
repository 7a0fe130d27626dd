import { basename, isAbsolute, resolve } from "node:path";
import { type ArchiveMember, archiveMembers } from "./archive-members.js";
import { checkChangeAt } from "./check-targets.js";
import { type PathScope, pathFinding, sensitiveTarget } from "./command-paths.js";
import { isWithin } from "./context.js";
import { protectedWriteTarget } from "./hardline.js";
import type { Invocation } from "./wrappers.js";

/**
 * Pass 11: extracting an archive writes every member. `tar -xf x.tar` with a member
 * `.git/hooks/pre-commit`, `.vscode/tasks.json` or an existing test is that write (`path.git-internals`,
 * `path.autorun`, `command.check-change`), judged member by member like a redirection; a link member
 * pointing outside the workspace is `path.outside-roots`. An archive whose members cannot be read
 * (missing, on standard input, compressed other than gzip, 7z, cpio) or renamed on the way (`--transform`,
 * `bsdtar -s`) writes files nobody can name before it runs: opaque (`command.eval`, a person's call).
 */

interface Extraction {
  /** The archive file, or null when it arrives on standard input. */
  archive: string | null;
  /** The folder members land in, relative to the working directory. */
  destination: string;
  /** Leading components removed from each name (`--strip-components`), or "flat" (`7z e`, `unzip -j`). */
  strip: number | "flat";
  /** Names are rewritten by a pattern the engine does not apply. */
  renamed: boolean;
  /** No reader for this format. */
  unreadable: boolean;
}

const maxJudgedMembers = 2000;

export function archiveExtractionChecks(invocation: Invocation, scope: PathScope): void {
  const args = invocation.words.slice(1).map((word) => word.text);
  const extraction = extractionOf(invocation.program, args);
  if (extraction === null) return;
  const members =
    extraction.archive === null || extraction.unreadable || extraction.renamed
      ? null
      : archiveMembers(extraction.archive, scope.context.cwd);
  if (members === null || members.length > maxJudgedMembers) {
    scope.add({
      decision: "ask",
      rule: "command.eval",
      reason: `${invocation.program} extracts ${extraction.archive ?? "standard input"}, whose member names cannot be read before it runs, so where its files land is unknown`,
    });
    return;
  }
  const folder = resolve(scope.context.cwd, extraction.destination);
  for (const member of members) judgeMember(member, extraction, folder, scope);
}

function judgeMember(member: ArchiveMember, extraction: Extraction, folder: string, scope: PathScope): void {
  const parts = member.name.split("/").filter((part) => part !== "" && part !== ".");
  const kept = extraction.strip === "flat" ? parts.slice(-1) : parts.slice(extraction.strip);
  if (kept.length === 0) return;
  if (kept.includes("..")) {
    scope.add(outside(`the member ${member.name} climbs out of the folder it is extracted into`));
    return;
  }
  const target = resolve(folder, ...kept);
  if (member.link !== undefined && member.link !== "") {
    const pointsAt = isAbsolute(member.link) ? member.link : resolve(target, "..", member.link);
    if (member.link === "?" || !scope.context.writeRoots.some((root) => isWithin(pointsAt, root)))
      scope.add(outside(`the link member ${member.name} points at ${member.link}, outside the workspace`));
  }
  const hard = protectedWriteTarget(target, scope.context, scope.fsApi);
  if (hard) {
    scope.add(hard);
    return;
  }
  sensitiveTarget(scope, target);
  pathFinding(scope, target, "write", "command.archive");
  checkChangeAt(target, scope, "ignored");
}

function outside(reason: string) {
  return { decision: "ask" as const, rule: "path.outside-roots", reason };
}

/** What an archiver's words extract and where, or null when the command does not extract. */
export function extractionOf(program: string, args: string[]): Extraction | null {
  const name = basename(program);
  if (name === "tar" || name === "gtar" || name === "bsdtar" || name === "jar") return tarExtraction(args);
  if (name === "unzip") return unzipExtraction(args);
  if (/^7z[az]?r?$/.test(name)) {
    const command = args.find((arg) => !arg.startsWith("-"));
    if (command !== "x" && command !== "e") return null;
    const archive = args.filter((arg) => !arg.startsWith("-"))[1] ?? null;
    const output = args.find((arg) => arg.startsWith("-o"));
    // 7z reads zip and tar too; those are judged by their members, other formats are unknown.
    const readable = archive !== null && /\.(zip|tar|tgz|tar\.gz|jar)$/i.test(archive);
    return {
      archive,
      destination: output ? output.slice(2) || "." : ".",
      strip: command === "e" ? "flat" : 0,
      renamed: false,
      unreadable: !readable,
    };
  }
  if (name === "cpio" && args.some((arg) => /^-[A-Za-z]*i/.test(arg) || arg === "--extract"))
    return { archive: null, destination: ".", strip: 0, renamed: false, unreadable: true };
  return null;
}

function tarExtraction(args: string[]): Extraction | null {
  let extract = false;
  let archive: string | null = null;
  let destination = ".";
  let strip = 0;
  let renamed = false;
  const pending: string[] = [];
  const take = (letter: string, value: string | undefined) => {
    if (letter === "f") archive = value ?? null;
    if (letter === "C") destination = value ?? ".";
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const next = () => {
      index += 1;
      return args[index];
    };
    if (pending.length > 0 && !arg.startsWith("-")) {
      take(pending.shift() as string, arg);
      continue;
    }
    if (arg === "--extract" || arg === "--get") extract = true;
    else if (arg === "--file" || arg === "--directory") take(arg === "--file" ? "f" : "C", next());
    else if (arg.startsWith("--file=")) archive = arg.slice(7);
    else if (arg.startsWith("--directory=")) destination = arg.slice(12);
    else if (arg.startsWith("--strip-components=")) strip = Number(arg.slice(19)) || 0;
    else if (arg === "--strip-components") strip = Number(next()) || 0;
    else if (/^--(transform|xform)/.test(arg) || arg === "-s") renamed = true;
    else if (arg.startsWith("--")) continue;
    else if (arg.startsWith("-") || (index === 0 && /^[A-Za-z]+$/.test(arg))) {
      const letters = arg.replace(/^-/, "");
      for (let at = 0; at < letters.length; at++) {
        const letter = letters[at] as string;
        if (letter === "x") extract = true;
        if (letter !== "f" && letter !== "C") continue;
        const rest = letters.slice(at + 1);
        // `-xfhooks.tar`: the rest of a dash cluster is the value; old style (`xf x.tar`) takes operands.
        if (arg.startsWith("-") && rest !== "") take(letter, rest);
        else if (arg.startsWith("-")) take(letter, next());
        else pending.push(letter);
        if (arg.startsWith("-") && rest !== "") break;
      }
    }
  }
  if (!extract) return null;
  if (archive === "-") archive = null;
  return { archive, destination, strip, renamed, unreadable: false };
}

function unzipExtraction(args: string[]): Extraction | null {
  // Listing, testing and printing modes write nothing.
  if (args.some((arg) => /^-[A-Za-z]*[lvtZzp]/.test(arg))) return null;
  let archive: string | null = null;
  let destination = ".";
  let flat = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "-d") destination = args[++index] ?? ".";
    else if (arg.startsWith("-d")) destination = arg.slice(2);
    else if (arg === "-P") index += 1;
    else if (arg === "-x") break;
    else if (arg.startsWith("-")) flat ||= /^-[A-Za-z]*j/.test(arg);
    else if (archive === null) archive = arg;
  }
  if (archive === null) return null;
  return { archive, destination, strip: flat ? "flat" : 0, renamed: false, unreadable: false };
}
