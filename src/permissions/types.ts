/** What the permission engine concludes about one request, with a stable rule id and a reason a person can read. */
export interface Decision {
  decision: "allow" | "ask" | "deny";
  /** Stable id, e.g. "hardline.rm-root", "path.sensitive", "command.readonly", "command.chain". */
  rule: string;
  reason: string;
  /** Path requests: the real path that was checked; the tool must act on this one. */
  resolvedPath?: string;
  /**
   * What an approval or grant is keyed on: the trimmed command, or "read:/real/path".
   * Grants match this exactly (or by a confirmed prefix when `singleCommand`).
   */
  subject: string;
  /** True when a command is one simple command without chains, pipes, redirections or substitutions. */
  singleCommand?: boolean;
  /**
   * True when part of a command cannot be known before it runs (substitution, unknown variables,
   * brace or other expansions, unparseable text): allow-all does not cover it, a person must approve.
   */
  opaque?: boolean;
  /** Commands: the command needs the network (a download, a push, a package install). */
  needsNetwork?: boolean;
  /** Commands: the hosts it names (URLs, `user@host:`), for the per-task exfiltration check. */
  hosts?: string[];
  /** Commands: it reads something outside the workspace (approved), which makes the task's input untrusted. */
  readsOutside?: boolean;
  /** Commands: something in it reaches outside the workspace (or needs privileges): a person decides. */
  outside?: boolean;
  /** Commands: it changes the checks (an existing test, a test or CI definition, package.json scripts): a person decides. */
  changesChecks?: boolean;
}

export const decisionRank = { allow: 0, ask: 1, deny: 2 } as const;

/** Picks the stricter of two decisions; on a tie the first one wins so rule ids stay predictable. */
export function stricter(a: Decision, b: Decision): Decision {
  return decisionRank[b.decision] > decisionRank[a.decision] ? b : a;
}
