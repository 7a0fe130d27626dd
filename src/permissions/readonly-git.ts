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
  "version",
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

/** git's own options before the subcommand; anything else (`-c`, `--exec-path=`, `-p`…) is not trusted. */
const globalFlags = new Set([
  "--no-pager",
  "-P",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--bare",
  "--version",
  "--no-lazy-fetch",
  "--no-advice",
]);
const globalPathOptions = new Set(["-C", "--git-dir", "--work-tree"]);

/**
 * Options of read-only subcommands that write a file, run a program or open a pager/editor,
 * matched with every abbreviation git's option parser accepts (`--outp=` is `--output=`).
 */
const forbiddenLong = [
  "--output",
  "--output-directory",
  "--ext-diff",
  "--open-files-in-pager",
  "--textconv",
  "--upload-pack",
  "--receive-pack",
  "--exec",
  "--edit-description",
  "--set-upstream-to",
  "--unset-upstream",
  "--create-reflog",
  "--delete",
  "--move",
  "--copy",
  "--force",
  "--annotate",
  "--sign",
  "--local-user",
  "--file",
  "--contents",
];

export function judgeGit(args: string[], judgement: ReadonlyJudgement): ReadonlyJudgement {
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (
      arg === "-c" ||
      arg.startsWith("-c") ||
      arg.startsWith("--config-env") ||
      arg.startsWith("--exec-path")
    ) {
      judgement.findings.push(gitInjection);
      return judgement;
    }
    const equals = arg.indexOf("=");
    const name = equals === -1 ? arg : arg.slice(0, equals);
    if (globalPathOptions.has(name)) {
      const value = equals === -1 ? (args[index + 1] ?? "") : arg.slice(equals + 1);
      judgement.paths.push(value);
      judgement.git ??= {};
      if (name === "-C")
        judgement.git.chdir = judgement.git.chdir ? `${judgement.git.chdir}/${value}` : value;
      if (name === "--git-dir") judgement.git.gitDir = value;
      if (equals === -1) index += 1;
      continue;
    }
    if (globalFlags.has(arg)) continue;
    if (arg.startsWith("-")) {
      judgement.findings.push(notReadonly("git", `${arg} is not a listed read-only git option`));
      return judgement;
    }
    break;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  if (sub === undefined && args.includes("--version")) return judgement;
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
  const dashDash = rest.indexOf("--");
  const options = (dashDash >= 0 ? rest.slice(0, dashDash) : rest).filter((arg) => arg.startsWith("--"));
  const forbidden = options.find((arg) => {
    const name = arg.split("=")[0] as string;
    return forbiddenLong.some(
      (option) => name.length >= 4 && (option.startsWith(name) || name.startsWith(`${option}-`)),
    );
  });
  const shortForbidden = sub === "grep" ? rest.find(grepPagerCluster) : undefined;
  if (forbidden || shortForbidden) {
    judgement.findings.push(
      notReadonly(
        "git",
        `${sub} ${forbidden ?? shortForbidden} writes a file, runs another program or changes refs`,
      ),
    );
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
  // `git remote show NAME` contacts the remote (runs ssh or an upload-pack); only local listing is read-only.
  if (
    sub === "remote" &&
    ((positional.length > 0 && positional[0] !== "get-url") ||
      rest.some((arg) => !/^(-v|--verbose)$/.test(arg) && arg.startsWith("-")))
  ) {
    judgement.findings.push(notReadonly("git", `remote ${rest.join(" ")} contacts or changes the remotes`));
    return judgement;
  }
  // A bare `git stash` (or `stash -u`, `stash push`…) saves and resets changes: only list and show read.
  if (sub === "stash" && !["list", "show"].includes(positional[0] ?? "")) {
    judgement.findings.push(notReadonly("git", `stash ${rest.join(" ")} changes the working tree`.trim()));
    return judgement;
  }
  if (sub === "reflog" && positional.length > 0 && !["list", "show"].includes(positional[0] as string)) {
    judgement.findings.push(notReadonly("git", `reflog ${positional[0]} changes the repository`));
    return judgement;
  }
  if (dashDash >= 0) judgement.paths.push(...rest.slice(dashDash + 1));
  // Revisions look like "HEAD~1" or "origin/main"; every word that names a file (absolute, relative,
  // climbing out with `..`, or an existing path) is checked: `git diff --no-index ./../../etc/passwd x`.
  const before = dashDash >= 0 ? rest.slice(0, dashDash) : rest;
  for (const arg of before) {
    if (arg.startsWith("-")) {
      const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : "";
      if (/^(\/|~|\.)/.test(value)) judgement.paths.push(value);
      continue;
    }
    if (arg.includes(":") || arg.includes("@{")) continue;
    if (/^(\/|~|\.)/.test(arg) || arg.includes("/")) judgement.paths.push(arg);
  }
  return judgement;
}

/**
 * `git grep -O<cmd>` opens the matches with a program; git's option parser reads short options in
 * clusters, so `-nOcmd` and `-iO'sh -c id'` are the same option. Letters before the first one that
 * takes a value are options; `-e`/`-f`/`-m`/`-A`/`-B`/`-C` end the cluster (the rest is their value).
 */
function grepPagerCluster(arg: string): boolean {
  if (!/^-[^-]/.test(arg)) return false;
  for (const letter of arg.slice(1)) {
    if (letter === "O") return true;
    if ("efmABC".includes(letter)) return false;
  }
  return false;
}
