/** Names other clients use in `allowed-tools`, mapped to Mercury's tools. */
const aliases: Record<string, string[]> = {
  bash: ["run_command"],
  shell: ["run_command"],
  read: ["read_file", "list_dir"],
  write: ["write_file"],
  edit: ["edit_file"],
  multiedit: ["edit_file"],
  glob: ["search_files", "list_dir"],
  grep: ["search_files"],
  ls: ["list_dir"],
  webfetch: ["web_fetch"],
};

/** Tools that only talk to the user or read the skill itself: never removed by narrowing. */
export const alwaysAvailableWhileNarrowed = new Set(["activate_skill", "ask_user", "update_plan"]);

/**
 * What a skill's `allowed-tools` leaves available: a set of tool names (a subset of `known`).
 * A pattern such as `Bash(git:*)` narrows to `run_command` as a whole — it never pre-approves the
 * commands it names: every command is still decided by the permission engine.
 */
export function narrowedToolNames(
  tokens: readonly string[],
  known: readonly string[],
): { allowed: Set<string>; unknown: string[] } {
  const knownSet = new Set(known);
  const allowed = new Set<string>();
  const unknown: string[] = [];
  for (const token of tokens) {
    const bare = token.replace(/\(.*\)$/s, "").trim();
    if (knownSet.has(bare)) {
      allowed.add(bare);
      continue;
    }
    const mapped = aliases[bare.toLowerCase()];
    if (mapped) for (const name of mapped) if (knownSet.has(name)) allowed.add(name);
    if (!mapped) unknown.push(token);
  }
  return { allowed, unknown };
}
