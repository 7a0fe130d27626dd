/**
 * The tools a scheduled run can hold: the app's own tools (built-in, memory, sub-agents, listing jobs)
 * without the ones that change jobs. Skills' and MCP servers' tools come from a task's hooks, which
 * a narrowed run skips, so they are not among them. Kept as a list so `mercury schedule add` can
 * check `--tools` without building the app; test/scheduler/tool-names.test.ts holds it to the app's.
 */
export const scheduledRunToolNames: readonly string[] = [
  "read_file",
  "write_file",
  "edit_file",
  "list_dir",
  "search_files",
  "delete_file",
  "run_command",
  "web_fetch",
  "ask_user",
  "update_plan",
  "memory_save",
  "memory_search",
  "memory_forget",
  "list_scheduled_tasks",
  "delegate_task",
  "list_agents",
  "stop_agent",
];

/**
 * A job's `tools` narrowing, checked: a misspelt name narrowed the run to nothing it could use and
 * was only found when the run failed. Returns the names, or throws naming the unknown ones and the
 * valid ones (`flag` is how the person wrote the list: "--tools" or "permissions.tools").
 */
export function validateToolNames(names: readonly string[], flag: string): string[] {
  if (names.length === 0)
    throw new Error(
      `${flag} names no tool; give at least one (e.g. read_file,search_files), or leave it out for all tools`,
    );
  const known = new Set(scheduledRunToolNames);
  const unknown = names.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    const listed = unknown.map((name) => `"${name}"`).join(", ");
    throw new Error(
      `${flag}: unknown tool${unknown.length === 1 ? "" : "s"} ${listed}; the tools a scheduled run can use are ${scheduledRunToolNames.join(", ")}`,
    );
  }
  return [...new Set(names)];
}
