/** Starts the error of a delegate_task whose child's check failed or never ran (read by the tool runner). */
export const uncheckedPrefix = "[unverified] ";

/** For the parent's evidence: why a failed delegate_task leaves its checks unproven; null otherwise. */
export function uncheckedDelegation(error: string): string | null {
  if (!error.startsWith(uncheckedPrefix)) return null;
  const rest = error.slice(uncheckedPrefix.length);
  const end = rest.indexOf(": {");
  return `a sub-agent's check did not pass or never ran (${end > 0 ? rest.slice(0, end) : rest})`;
}
