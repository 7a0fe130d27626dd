import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { PermissionContext } from "./context.js";
import { checkPath, type PathFs, resolveReal } from "./paths.js";
import { sensitiveMatch } from "./sensitive.js";
import type { Finding } from "./shell-words.js";

/** Path checks made while walking a command: file arguments, glob matches, secret names anywhere. */
export interface PathScope {
  context: PermissionContext;
  fsApi: PathFs;
  add(finding: Finding): void;
}

/** Globs in the last path component are expanded here and every match is checked; others are asked. */
export function expandGlob(scope: PathScope, pattern: string): void {
  const slash = pattern.lastIndexOf("/");
  const dirPart = slash === -1 ? "." : pattern.slice(0, slash) || "/";
  const namePart = pattern.slice(slash + 1);
  if (/[*?[]/.test(dirPart) || namePart.includes("[") || namePart === "") {
    scope.add({
      decision: "ask",
      rule: "command.glob",
      reason: `the glob ${pattern} cannot be checked before it runs`,
    });
    return;
  }
  const dirCheck = checkPath(dirPart, "read", scope.context, scope.fsApi);
  if (dirCheck.decision !== "allow") {
    scope.add({ decision: dirCheck.decision, rule: dirCheck.rule, reason: dirCheck.reason });
    return;
  }
  const regex = new RegExp(
    `^${namePart
      .replace(/[.+^${}()|\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "s",
  );
  const directory = dirCheck.resolvedPath ?? dirPart;
  let names: string[];
  try {
    names = existsSync(directory) ? readdirSync(directory) : [];
  } catch (error) {
    scope.add({
      decision: "ask",
      rule: "command.glob",
      reason: `the glob ${pattern} could not be listed: ${String(error)}`,
    });
    return;
  }
  // Older bash (and `shopt -u globskipdots`) lets `.*` match "." and "..": check those too.
  const matches = [...names, ".", ".."].filter((name) => regex.test(name));
  if (matches.length > 2000) {
    scope.add({
      decision: "ask",
      rule: "command.glob",
      reason: `the glob ${pattern} matches ${matches.length} files`,
    });
    return;
  }
  for (const name of matches) pathFinding(scope, join(directory, name), "read", "command.path");
}

export function pathFinding(scope: PathScope, path: string, access: "read" | "write", _origin: string): void {
  const decision = checkPath(path, access, scope.context, scope.fsApi);
  if (decision.decision === "allow") return;
  scope.add({ decision: decision.decision, rule: decision.rule, reason: decision.reason });
}

export function sensitiveTarget(scope: PathScope, text: string): void {
  const lexical = sensitiveMatch(
    text.startsWith("/") ? text : join(scope.context.cwd, text),
    scope.context.home,
    scope.context.mercuryHome,
  );
  if (lexical)
    scope.add({
      decision: "deny",
      rule: "path.sensitive",
      reason: `${text} is ${lexical.what}; it is off-limits in every mode`,
    });
}

/** Any argument naming a secret file is refused, whatever the program; also paths inside inline code. */
export function sensitiveArgument(scope: PathScope, text: string): void {
  const candidates = new Set<string>();
  const addCandidate = (raw: string) => {
    const value = raw.replace(/^@/, "");
    // A pattern such as '*.pem' names no file; globs that do run are expanded and checked elsewhere.
    if (value === "" || value.startsWith("-") || /[*?[]/.test(value)) return;
    candidates.add(value.startsWith("~/") || value === "~" ? scope.context.home + value.slice(1) : value);
  };
  addCandidate(text);
  const equals = text.indexOf("=");
  if (equals > 0) addCandidate(text.slice(equals + 1));
  for (const match of text.matchAll(/(?:~|\$HOME|\$\{HOME\}|\/)[^\s'"`;|&<>(),]*/g)) {
    addCandidate(match[0].replace(/^\$\{?HOME\}?/, scope.context.home));
  }
  for (const candidate of candidates) {
    const absolute = candidate.startsWith("/") ? candidate : join(scope.context.cwd, candidate);
    let match = sensitiveMatch(absolute, scope.context.home, scope.context.mercuryHome);
    if (!match) {
      const resolved = resolveReal(candidate, scope.context.cwd, scope.context.home, scope.fsApi);
      if (resolved.ok && resolved.exists)
        match = sensitiveMatch(resolved.realPath, scope.context.home, scope.context.mercuryHome);
    }
    if (match) {
      scope.add({
        decision: "deny",
        rule: "path.sensitive",
        reason: `${candidate} is ${match.what}; it is off-limits in every mode`,
      });
      return;
    }
  }
}
