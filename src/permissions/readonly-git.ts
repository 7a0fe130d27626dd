import type { ReadonlyJudgement } from "./readonly.js";
import type { Finding } from "./shell-words.js";

const notReadonly = (program: string, why: string): Finding => ({
  decision: "ask",
  rule: "command.not-readonly",
  reason: `${program} ${why}`,
});

const gitReadonly = new Set([
  "status",
  "log",
  "diff",
  "show",
  "branch",
  "rev-parse",
  "ls-files",
  "blame",
  "shortlog",
  "describe",
  "remote",
  "tag",
  "stash",
  "reflog",
  "cat-file",
  "ls-tree",
  "merge-base",
  "whatchanged",
  "grep",
  "rev-list",
  "count-objects",
  "show-ref",
]);

const gitInjection: Finding = {
  decision: "ask",
  rule: "command.git-config",
  reason:
    "git options that set configuration or programs (-c, --config-env, --exec-path, --upload-pack, --exec) can run arbitrary commands",
};

const branchListing = {
  flags: new Set([
    "-a",
    "-r",
    "-v",
    "-vv",
    "-l",
    "--list",
    "--all",
    "--remotes",
    "--show-current",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--sort",
    "--format",
    "--color",
    "--no-color",
    "--points-at",
    "--column",
    "--no-column",
    "--verbose",
  ]),
  withValue: new Set([
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--sort",
    "--format",
    "--points-at",
  ]),
};
const tagListing = {
  flags: new Set([
    "-l",
    "--list",
    "-n",
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--sort",
    "--format",
    "--points-at",
    "--column",
    "--color",
  ]),
  withValue: new Set([
    "--contains",
    "--no-contains",
    "--merged",
    "--no-merged",
    "--sort",
    "--format",
    "--points-at",
  ]),
};

export function judgeGit(args: string[], judgement: ReadonlyJudgement): ReadonlyJudgement {
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (
      arg === "-c" ||
      arg.startsWith("--config-env") ||
      arg.startsWith("--exec-path") ||
      arg.startsWith("-c")
    ) {
      judgement.findings.push(gitInjection);
      return judgement;
    }
    if (arg === "-C" || arg === "--git-dir" || arg === "--work-tree") {
      judgement.paths.push(args[index + 1] ?? "");
      index += 1;
      continue;
    }
    if (arg.startsWith("--git-dir=") || arg.startsWith("--work-tree=")) {
      judgement.paths.push(arg.slice(arg.indexOf("=") + 1));
      continue;
    }
    if (arg.startsWith("-")) continue;
    break;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  if (
    rest.some(
      (arg) =>
        /^--(upload-pack|receive-pack|exec)\b/.test(arg) ||
        /core\.(sshcommand|pager|editor|fsmonitor|hookspath)/i.test(arg),
    )
  ) {
    judgement.findings.push(gitInjection);
    return judgement;
  }
  if (sub === undefined || !gitReadonly.has(sub)) {
    judgement.findings.push(notReadonly("git", `${sub ?? "(no subcommand)"} is not a read-only git command`));
    return judgement;
  }
  const forbidden = rest.find(
    (arg) => /^--(output|ext-diff|open-files-in-pager)/.test(arg) || (sub === "grep" && /^-O/.test(arg)),
  );
  if (forbidden) {
    judgement.findings.push(notReadonly("git", `${sub} ${forbidden} writes a file or runs another program`));
    return judgement;
  }
  const positional = rest.filter((arg) => !arg.startsWith("-"));
  if (sub === "branch" || sub === "tag") {
    const listing = sub === "branch" ? branchListing : tagListing;
    for (let i = 0; i < rest.length; i++) {
      const arg = rest[i] as string;
      const name = arg.split("=")[0] as string;
      if (!arg.startsWith("-") || !listing.flags.has(name)) {
        judgement.findings.push(notReadonly("git", `${sub} ${arg} creates, deletes or changes refs`));
        return judgement;
      }
      if (listing.withValue.has(name) && !arg.includes("=")) i += 1;
    }
    return judgement;
  }
  if (sub === "remote" && positional.length > 0 && !["show", "get-url"].includes(positional[0] as string)) {
    judgement.findings.push(notReadonly("git", `remote ${positional[0]} changes the remotes`));
    return judgement;
  }
  if (
    (sub === "stash" || sub === "reflog") &&
    positional.length > 0 &&
    !["list", "show"].includes(positional[0] as string)
  ) {
    judgement.findings.push(notReadonly("git", `${sub} ${positional[0]} changes the repository`));
    return judgement;
  }
  const dashDash = rest.indexOf("--");
  if (dashDash >= 0) judgement.paths.push(...rest.slice(dashDash + 1));
  // Revisions look like "HEAD~1" or "origin/main"; anything absolute or climbing out is a file to check
  // (`git diff --no-index /etc/passwd x` reads outside the project).
  const before = dashDash >= 0 ? rest.slice(0, dashDash) : rest;
  judgement.paths.push(...before.filter((arg) => /^(\/|~|\.\.)/.test(arg)));
  return judgement;
}
