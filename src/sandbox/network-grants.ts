/**
 * Network granted by configuration (`sandbox.networkCommands`): a command whose words begin with
 * one of the configured patterns gets the (filtered) network once it is allowed to run, without a
 * person approving the network each time. Matching is deliberately plain so that nothing can ride
 * along: the command must be one simple command of ordinary words — no `;`, `&&`, pipes,
 * substitutions, redirections, quotes, globs or variable assignments — so `npm install; curl …`
 * or `npm install $(…)` never match `npm install`.
 */

/** Characters a word of a pattern or a matching command may hold. */
const plainWord = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Why `pattern` is not a usable network command pattern, or null when it is. */
export function networkPatternProblem(pattern: string): string | null {
  const words = splitWords(pattern);
  if (words.length === 0) return "is empty";
  const odd = words.find((word) => !plainWord.test(word));
  if (odd !== undefined)
    return `has "${odd}", which is not a plain word (letters, digits and _ @ % + = : , . / - only)`;
  if (words[0]?.includes("=")) return "starts with a variable assignment; name the program first";
  return null;
}

/** The configured pattern that grants `command` the network, or null. */
export function networkPatternFor(command: string, patterns: readonly string[]): string | null {
  const words = splitWords(command);
  if (words.length === 0 || !words.every((word) => plainWord.test(word))) return null;
  if (words[0]?.includes("=")) return null;
  for (const pattern of patterns) {
    const wanted = splitWords(pattern);
    if (wanted.length === 0 || wanted.length > words.length) continue;
    if (wanted.every((word, index) => words[index] === word)) return pattern;
  }
  return null;
}

function splitWords(text: string): string[] {
  // A newline separates commands in the shell: it is not a word separator here (plainWord refuses it).
  return text.split(/[ \t]+/).filter((word) => word !== "");
}
