import type { Finding } from "./shell-words.js";

export const interpreterInlineFlags: Record<string, string[]> = {
  node: ["-e", "--eval", "-p", "--print"],
  nodejs: ["-e", "--eval", "-p", "--print"],
  deno: ["eval"],
  bun: ["-e", "--eval", "-p", "--print"],
  python: ["-c"],
  python2: ["-c"],
  python3: ["-c"],
  perl: ["-e", "-E"],
  ruby: ["-e"],
  php: ["-r"],
  lua: ["-e"],
  osascript: ["-e"],
  pwsh: ["-c", "-command"],
  powershell: ["-c", "-command"],
  rscript: ["-e"],
  r: ["-e"],
  julia: ["-e", "-E", "--eval", "--print"],
  // Pass 9: more interpreters whose code was never read.
  octave: ["--eval"],
  "octave-cli": ["--eval"],
  sbcl: ["--eval"],
  clisp: ["-x"],
  erl: ["-eval"],
  elixir: ["-e", "--eval"],
  groovy: ["-e"],
  gnuplot: ["-e"],
  guile: ["-c"],
  racket: ["-e"],
  scala: ["-e"],
  kotlin: ["-e"],
  swift: ["-e"],
  gst: ["--eval"],
  nim: ["--eval"],
  awk: [],
  gawk: [],
  mawk: [],
  nawk: [],
  tclsh: [],
  wish: [],
};

/** awk and its implementations: the first operand is a program. */
export const awkPrograms = new Set(["awk", "gawk", "mawk", "nawk"]);

export const interpreters = new Set([
  ...Object.keys(interpreterInlineFlags),
  "eval",
  "source",
  ".",
  "xargs",
  "sudo",
]);

export const standardBinDirs = new Set([
  "/bin",
  "/usr/bin",
  "/usr/local/bin",
  "/sbin",
  "/usr/sbin",
  "/opt/homebrew/bin",
]);

/** Ask rules in the order they are reported when several apply (the most telling first). */
export const askPriority = [
  "network.exfiltration",
  "path.git-internals",
  "path.autorun",
  "command.persistence",
  "command.discards-work",
  "command.check-change",
  "command.parse-error",
  "command.control-chars",
  "command.unicode",
  "command.privilege",
  "command.registry-code",
  "command.pipe-to-interpreter",
  "command.inline-code",
  "command.eval",
  "command.chain",
  "command.background",
  "command.function",
  "command.compound",
  "command.substitution",
  "command.process-substitution",
  "command.redirect",
  "command.find-exec",
  "command.find-delete",
  "command.find-write",
  "command.xargs",
  "command.git-config",
  "command.assignment",
  "command.variable",
  "command.tilde",
  "command.brace-expansion",
  "command.expansion",
  "command.glob",
  "command.wrapper-option",
  "command.environment-dump",
  "command.program-path",
  "command.not-readonly",
  "command.follows-symlinks",
  "command.recursive-sensitive",
];
/**
 * Findings that mean the engine cannot know what will run. Allow-all does not cover them: the
 * hardline promise would be empty if `"$(echo rm)" -rf /` ran unseen under --yes.
 */
export const opaqueRules = new Set([
  "command.eval",
  "command.parse-error",
  "command.control-chars",
  "command.unicode",
  "command.substitution",
  "command.process-substitution",
  "command.variable",
  "command.tilde",
  "command.brace-expansion",
  "command.expansion",
]);

export const maxCommandLength = 64 * 1024;

export const denyPriority = ["hardline.", "path.sensitive", "path."];

export interface Analysis {
  findings: Finding[];
  /** Some command in it needs the network. */
  needsNetwork?: boolean;
  /** Hosts named by networked commands. */
  hosts?: Set<string>;
}

/** The finding that decides: any deny beats any ask; within each, the fixed priority order. */
export function choose(findings: Finding[]): Finding | null {
  const denies = findings.filter((finding) => finding.decision === "deny");
  if (denies.length > 0) {
    for (const prefix of denyPriority) {
      const hit = denies.find((finding) => finding.rule.startsWith(prefix));
      if (hit) return hit;
    }
    return denies[0] ?? null;
  }
  for (const rule of askPriority) {
    const hit = findings.find((finding) => finding.rule === rule);
    if (hit) return hit;
  }
  return findings[0] ?? null;
}

/** Control characters other than tab and newline (a carriage return can hide text in a terminal). */
export function hasControlCharacters(source: string): boolean {
  for (const char of source) {
    const code = char.charCodeAt(0);
    if ((code < 0x20 && code !== 0x09 && code !== 0x0a) || code === 0x7f) return true;
  }
  return false;
}

/** Bash brace expansion of comma lists (`{a,b}c` -> `ac bc`), enough to see through `{rm,-rf,/}`. */
export function expandBraces(text: string, depth = 0): string[] {
  const match = /\{([^{}]*,[^{}]*)\}/.exec(text);
  if (!match || depth > 8) return [text];
  const before = text.slice(0, match.index);
  const after = text.slice(match.index + match[0].length);
  const options = (match[1] as string).split(",");
  if (options.length > 64) return [text];
  return options.flatMap((option) => expandBraces(`${before}${option}${after}`, depth + 1));
}
