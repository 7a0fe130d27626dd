export const slashCommandHelp: Record<string, string> = {
  "/help": "this list",
  "/new": "start a new session (the old one stays in the database)",
  "/status": "provider, model, session, running task, budget",
  "/budget": "tokens and cost used today against the limits",
  "/stop": "stop the running task (Ctrl+C does the same)",
  "/memory": "recent memories; /memory <query> searches them",
  "/model": "show the model; /model <id> switches this chat to another model of the same provider",
  "/resume": "list recent sessions; /resume <number> continues one of them",
  "/permissions": "allow-all status; /permissions allow-all [minutes] | ask",
  "/undo": "show what the last task changed and restore it (/undo <task id>)",
  "/skills": "skills here; /skills review [approve|reject <id>] for learned drafts",
  "/schedule": "scheduled jobs; /schedule <what and when> asks the agent to schedule it (it asks you first)",
  "/agents": "sub-agents of this session; /agents stop <id>",
  "/exit": "leave (Ctrl+C twice, or Ctrl+D)",
};

/** The /help column: the longest command name and two spaces. */
export const helpWidth = Math.max(...Object.keys(slashCommandHelp).map((name) => name.length)) + 2;

export type SlashCommand = { name: string; argument: string };

/** "/new" → { name: "/new", argument: "" }; plain text → null. "//x" escapes a leading slash. */
export function parseSlashCommand(line: string): SlashCommand | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("/") || trimmed.startsWith("//")) return null;
  const [name = "", ...rest] = trimmed.split(/\s+/);
  return { name: name.toLowerCase(), argument: rest.join(" ") };
}

/** What a person may type to answer an approval in the terminal. */
export const approvalAnswers: Record<string, "once" | "session" | "always" | "deny"> = {
  y: "once",
  yes: "once",
  once: "once",
  s: "session",
  session: "session",
  a: "always",
  always: "always",
  n: "deny",
  no: "deny",
  deny: "deny",
};
