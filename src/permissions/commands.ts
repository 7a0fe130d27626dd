import { arithmeticBodies, plantedSubscripts } from "./arithmetic-names.js";
import {
  type Analysis,
  choose,
  hasControlCharacters,
  maxCommandLength,
  opaqueRules,
} from "./command-rules.js";
import { analyzeSource } from "./command-walker.js";
import type { PermissionContext } from "./context.js";
import { checkPath, nodePathFs, type PathFs, resolveReal } from "./paths.js";
import { rebindSource } from "./rebinding.js";
import { isHardDenial, resplitSource, speculativeContexts } from "./speculation.js";
import type { Decision } from "./types.js";
import { hasInvisibleCharacters } from "./unicode.js";

const speculationTriggers = new Set(["command.variable", "command.substitution", "command.tilde"]);

export { expandBraces, opaqueRules } from "./command-rules.js";

/** Findings about what lies outside the workspace: allow-all never settles a command that has one. */
const personOnlyFindings = new Set([
  "path.outside-roots",
  "path.env-file",
  "path.git-internals",
  "path.autorun",
  "command.persistence",
  "command.discards-work",
  "command.recursive-sensitive",
  "path.unicode",
  "command.privilege",
  "command.registry-code",
]);

// The pid part may be any word, substitution included: `/proc/$(pgrep mercury)/environ`, `/proc/${P}/mem`.
const processSecretText =
  /\/proc\/+(?:[^\s'"`;|&<>()]|\$\([^()\n]*\)|`[^`\n]*`|\$\{[^}\n]*\})*\/+(environ|mem|maps|smaps|smaps_rollup|numa_maps|pagemap|cmdline|auxv|stack|syscall|map_files)\b/;

/**
 * Command policy: the command is parsed with a real bash parser, every simple command in it
 * (including those nested in substitutions, functions and `bash -c` strings) is judged, and the
 * strictest finding decides. "allow" only when nothing was found: every command is read-only with
 * checked arguments. Pipes between read-only commands are allowed; a pipe into a shell or
 * interpreter is asked, and a download piped into one is a hardline denial.
 */

export interface CommandCheckOptions {
  fs?: PathFs;
}

export function decideCommand(
  command: string,
  cwd: string,
  context: PermissionContext,
  options: CommandCheckOptions = {},
): Decision {
  const subject = command.trim();
  if (subject === "")
    return { decision: "deny", rule: "command.invalid", reason: "the command is empty", subject };
  if (subject.length > maxCommandLength) {
    return {
      decision: "ask",
      rule: "command.parse-error",
      reason: `the command is ${subject.length} characters long; commands over ${maxCommandLength} are not analysed`,
      subject,
      opaque: true,
    };
  }
  const fsApi = options.fs ?? nodePathFs;
  // Relative paths and `..` in the command are resolved from the real working directory.
  const realCwd = resolveReal(cwd, context.cwd, context.home, fsApi);
  const local: PermissionContext = { ...context, cwd: realCwd.ok ? realCwd.realPath : cwd };
  const analysis: Analysis = { findings: [] };
  // Checked before trimming: a trailing carriage return is still a control character.
  if (hasControlCharacters(command)) {
    analysis.findings.push({
      decision: "ask",
      rule: "command.control-chars",
      reason: "the command contains control characters",
    });
  }
  if (local.cwd !== context.cwd) {
    const where = checkPath(local.cwd, "read", context, fsApi);
    if (where.decision !== "allow") {
      analysis.findings.push({
        decision: where.decision,
        rule: where.rule,
        reason: `the command would run in ${local.cwd}: ${where.reason}`,
      });
    }
  }
  const parsed = analyzeSource(subject, local, fsApi, analysis, 0);
  // Words the engine could not know (variables, substitutions, `~user`) are asked; a second look with
  // every value the command itself gives them turns a hidden hardline or secret into the deny it is.
  if (parsed !== null && analysis.findings.some((finding) => speculationTriggers.has(finding.rule))) {
    for (const speculative of speculativeContexts(parsed, local)) {
      const shadow: Analysis = { findings: [] };
      analyzeSource(subject, speculative, fsApi, shadow, 0);
      const resplit = resplitSource(subject, speculative);
      if (resplit !== null) analyzeSource(resplit, speculative, fsApi, shadow, 0);
      analysis.findings.push(...shadow.findings.filter(isHardDenial));
    }
  }
  // `alias x='rm -rf'; x ~`, `f() { rm -rf "$1"; }; f ~`: names bound to commands, judged as what they run.
  const rebound = parsed !== null ? rebindSource(subject) : null;
  if (rebound !== null) {
    const shadow: Analysis = { findings: [] };
    analyzeSource(rebound, local, fsApi, shadow, 1);
    analysis.findings.push(...shadow.findings.filter(isHardDenial));
  }
  // `x='a[$(rm -rf ~)]'; echo $((x))`: arithmetic expands the subscript of a value planted in a name.
  if (parsed !== null && arithmeticBodies(subject).length > 0) {
    const variables = speculativeContexts(parsed, local)[0]?.speculation?.variables ?? new Map();
    const planted = plantedSubscripts(subject, variables);
    analysis.findings.push(...planted.findings);
    for (const script of planted.scripts) {
      const shadow: Analysis = { findings: [] };
      analyzeSource(script, local, fsApi, shadow, 1);
      analysis.findings.push(...shadow.findings.filter((finding) => finding.decision === "deny"));
    }
  }
  // `/proc/$$/environ`, `/proc/*/mem`, `/proc/self/task/*/environ`: whatever the pid spelling, a process's
  // environment, memory or arguments hold Mercury's keys. Checked on the raw text, so no expansion hides it.
  if (processSecretText.test(subject.normalize("NFKC"))) {
    analysis.findings.push({
      decision: "deny",
      rule: "path.sensitive",
      reason:
        "the command names a process's environment, memory or command line under /proc; off-limits in every mode",
    });
  }
  const folded = subject.normalize("NFKC");
  if (folded !== subject || hasInvisibleCharacters(subject)) {
    analysis.findings.push({
      decision: "ask",
      rule: "command.unicode",
      reason: "the command contains look-alike or invisible Unicode characters",
    });
    // Judge the look-alike form too: "ｒｍ -ｒｆ /" must meet the same hardline as "rm -rf /".
    const shadow: Analysis = { findings: [] };
    analyzeSource(folded.replace(/[\p{Cf}]/gu, ""), local, fsApi, shadow, 0);
    analysis.findings.push(...shadow.findings.filter((finding) => finding.decision === "deny"));
  }
  const hosts = [...(analysis.hosts ?? [])];
  const network = local.network;
  if (analysis.needsNetwork && network?.untrusted) {
    const fresh = hosts.filter((host) => !network.contactedHosts.has(host));
    if (hosts.length === 0 || fresh.length > 0) {
      analysis.findings.push({
        decision: "ask",
        rule: "network.exfiltration",
        reason: `this task has read ${network.untrusted}; this command reaches ${fresh.length > 0 ? fresh.join(", ") : "a host the engine cannot name"}, which the task has not contacted, and could send data out`,
      });
    }
  }
  const readsOutside = analysis.findings.some((finding) => finding.rule === "path.outside-roots");
  const outside = analysis.findings.some((finding) => personOnlyFindings.has(finding.rule));
  const changesChecks = analysis.findings.some((finding) => finding.rule === "command.check-change");
  const facts = {
    ...(outside ? { outside: true } : {}),
    ...(changesChecks ? { changesChecks: true } : {}),
    ...(analysis.needsNetwork ? { needsNetwork: true } : {}),
    ...(hosts.length > 0 ? { hosts } : {}),
    ...(readsOutside ? { readsOutside: true } : {}),
  };
  const chosen = choose(analysis.findings);
  const single =
    parsed !== null &&
    parsed.length === 1 &&
    parsed[0]?.command?.type === "call" &&
    parsed[0].redirects.length === 0 &&
    !parsed[0].background;
  if (!chosen) {
    return {
      decision: "allow",
      rule: "command.readonly",
      reason: "every command is read-only and every path is allowed",
      subject,
      singleCommand: single,
      ...facts,
    };
  }
  const opaque = analysis.findings.some((finding) => opaqueRules.has(finding.rule));
  return {
    opaque,
    decision: chosen.decision,
    rule: chosen.rule,
    reason: chosen.reason,
    subject,
    singleCommand: single,
    ...facts,
  };
}
