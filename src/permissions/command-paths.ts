import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { PermissionContext } from "./context.js";
import { absoluteComponents, checkPath, type PathFs, resolveReal } from "./paths.js";
import { inodeKey, secretInodes } from "./secret-inodes.js";
import { sensitiveMatch, sensitiveRoots } from "./sensitive.js";
import type { Finding } from "./shell-words.js";
import { foldForComparison } from "./unicode.js";

/** Path checks made while walking a command: file arguments, glob matches, secret names anywhere. */
export interface PathScope {
  context: PermissionContext;
  fsApi: PathFs;
  add(finding: Finding): void;
}

const maxGlobMatches = 2000;

/** Bash glob of one path component as a regular expression (no dotfile matches unless the pattern starts with a dot). */
function componentRegex(component: string): RegExp {
  let source = "";
  for (let index = 0; index < component.length; index++) {
    const char = component[index] as string;
    if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const close = component.indexOf("]", index + 2);
      if (close === -1) source += "\\[";
      else {
        const body = component
          .slice(index + 1, close)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\");
        source += `[${body}]`;
        index = close;
      }
    } else source += char.replace(/[.+^${}()|\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`, "su");
}

const hasGlob = (text: string) => /[*?[]/.test(text);

function matchesComponent(pattern: string, name: string): boolean {
  if (!hasGlob(pattern)) return foldForComparison(pattern) === foldForComparison(name);
  if (name.startsWith(".") && !pattern.startsWith(".")) return false;
  try {
    return componentRegex(foldForComparison(pattern)).test(foldForComparison(name));
  } catch {
    // A bracket expression JavaScript cannot compile: assume it could match (the stricter answer).
    return true;
  }
}

/** Expands a glob over every component against the real file system (bounded). */
export function expandAll(pattern: string, context: PermissionContext): string[] | "too-many" {
  const components = absoluteComponents(pattern, context);
  let current = ["/"];
  for (const component of components) {
    const next: string[] = [];
    for (const directory of current) {
      if (!hasGlob(component)) {
        next.push(join(directory, component));
        continue;
      }
      let names: string[];
      try {
        names = readdirSync(directory);
      } catch {
        // Not a folder, missing or unreadable: bash would match nothing there.
        continue;
      }
      for (const name of names) if (matchesComponent(component, name)) next.push(join(directory, name));
      if (next.length > maxGlobMatches) return "too-many";
    }
    current = next;
  }
  return current.filter((path) => existsSync(path));
}

/**
 * A glob that can reach a secret is refused in every mode: one whose leading components can name
 * a secret location (`~/.ss[h]/id_rsa`, `$MERCURY_HOME/.en?`), or whose expansion on the real file
 * system matches a secret (a private key name, a symlink into ~/.ssh).
 */
export function globSecrets(scope: PathScope, pattern: string): boolean {
  const { context } = scope;
  const components = absoluteComponents(pattern, context);
  for (const root of sensitiveRoots(context.home, context.mercuryHome)) {
    const rootParts = root.split("/").filter(Boolean);
    if (components.length < rootParts.length) continue;
    if (rootParts.every((part, index) => matchesComponent(components[index] as string, part))) {
      scope.add({
        decision: "deny",
        rule: "path.sensitive",
        reason: `the glob ${pattern} can match ${root}; secrets are off-limits in every mode`,
      });
      return true;
    }
  }
  const matches = expandAll(pattern, context);
  if (matches === "too-many") return false;
  for (const match of matches) {
    const before = sensitiveOf(scope, match);
    if (before) {
      scope.add({
        decision: "deny",
        rule: "path.sensitive",
        reason: `the glob ${pattern} matches ${match}, which is ${before}; secrets are off-limits in every mode`,
      });
      return true;
    }
  }
  return false;
}

function sensitiveOf(scope: PathScope, path: string): string | null {
  const decision = checkPath(path, "read", scope.context, scope.fsApi);
  if (decision.decision === "deny" && decision.rule === "path.sensitive") return decision.reason;
  return null;
}

/** Globs are expanded here over every component and every match is checked for reading. */
export function expandGlob(scope: PathScope, pattern: string): void {
  if (globSecrets(scope, pattern)) return;
  const matches = expandAll(pattern, scope.context);
  if (matches === "too-many") {
    scope.add({
      decision: "ask",
      rule: "command.glob",
      reason: `the glob ${pattern} matches more than ${maxGlobMatches} files`,
    });
    return;
  }
  if (matches.length === 0) {
    // Bash passes an unmatched glob through as written: check that path like any other.
    pathFinding(scope, pattern, "read", "command.path");
    return;
  }
  for (const match of matches) pathFinding(scope, match, "read", "command.path");
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
  // A value attached to a short option (`-Ofile`, `-nffile`, `-d@file`, `-Kfile`): every tail of the
  // cluster is a candidate, since which letter takes the value depends on the program.
  if (/^-[^-]/.test(text) && text.length <= 256 && !/\s/.test(text)) {
    for (let at = 2; at < text.length; at++) addCandidate(text.slice(at));
  }
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
      // A hard link to a secret has an innocent name: only its device and inode give it away.
      const stats = resolved.ok ? resolved.stats : null;
      if (
        !match &&
        stats?.isFile() &&
        stats.nlink > 1 &&
        secretInodes(scope.context.home, scope.context.mercuryHome).has(inodeKey(stats))
      )
        match = { what: "a hard link to a secret file" };
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
