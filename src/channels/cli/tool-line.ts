/** One line per tool call: what ran, and how it ended (✓/✗, exit code, lines changed). */

function oneLine(text: string, limit: number): string {
  const single = text.replace(/\s+/g, " ").trim();
  return single.length > limit ? `${single.slice(0, limit - 1)}…` : single;
}

function field(input: unknown, name: string): string | null {
  if (input && typeof input === "object" && name in input) {
    const value = (input as Record<string, unknown>)[name];
    return typeof value === "string" ? value : null;
  }
  return null;
}

/** What a call is doing, for the spinner: "running `npm test`", "editing src/a.ts". */
export function toolActivity(toolName: string, input: unknown): string {
  const command = field(input, "command");
  if (toolName === "run_command" && command) return `running \`${oneLine(command, 40)}\``;
  const path = field(input, "path");
  const verbs: Record<string, string> = {
    read_file: "reading",
    write_file: "writing",
    edit_file: "editing",
    delete_file: "deleting",
    list_dir: "listing",
    search_files: "searching",
  };
  const verb = verbs[toolName];
  if (verb) return path ? `${verb} ${oneLine(path, 40)}` : verb;
  const url = field(input, "url");
  if (toolName === "web_fetch" && url) return `fetching ${oneLine(url, 40)}`;
  return `using ${toolName}`;
}

/** The short subject of a call: the command, the path, the URL or the query. */
function subject(toolName: string, input: unknown): string {
  for (const name of ["command", "path", "url", "query", "pattern", "glob", "question", "task"]) {
    const value = field(input, name);
    if (value) return oneLine(value, 60);
  }
  return toolName === "update_plan" ? "" : oneLine(JSON.stringify(input ?? {}), 60);
}

/** The result in a few words: exit code for commands, lines changed for edits, else the first line. */
function outcome(output: string, ok: boolean): string {
  // delegate_task answers with the child's whole result as JSON: its id and outcome say how it went.
  const child = /"agentId":"[^"]*\/(child-\d+)","outcome":"(\w+)"/.exec(output);
  if (child) return `${child[1]} ${child[2]}`;
  const exit = /^exit code: (-?\d+|none)/.exec(output);
  if (exit) {
    const timedOut = /timed out after/.test(output) ? ", timed out" : "";
    return `exit ${exit[1]}${timedOut}`;
  }
  const edited = /-(\d+) \+(\d+) lines/.exec(output);
  if (edited) return `+${edited[2]} −${edited[1]} lines`;
  const written = /(Created|Overwrote) .*?: \d+ bytes, (\d+) lines written/.exec(output);
  if (written) return `${written[1]?.toLowerCase()}, ${written[2]} line${written[2] === "1" ? "" : "s"}`;
  const first = output.split("\n")[0] ?? "";
  return oneLine(first, ok ? 60 : 160);
}

export function toolLine(toolName: string, input: unknown, ok: boolean, output: string): string {
  const what = subject(toolName, input);
  return `${ok ? "✓" : "✗"} ${toolName}${what ? ` ${what}` : ""} — ${outcome(output, ok)}`;
}
