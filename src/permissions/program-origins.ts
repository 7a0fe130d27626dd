import type { WalkScope } from "./command-walk-scope.js";
import type { PermissionContext } from "./context.js";
import { privilegeChangeFinding } from "./privilege-changes.js";
import { registryCodeFinding } from "./registry-code.js";
import type { Word } from "./shell-ast.js";
import { evaluateWord } from "./shell-words.js";
import { unreadProgramFindings, unreadStartupFile } from "./unread-programs.js";
import type { Invocation } from "./wrappers.js";
import type { WrittenFiles } from "./written-files.js";

/**
 * Pass 12, per invocation: where the code that runs comes from (a registry, a file that is not
 * there) and whether it hands out privileges. Kept out of command-call.ts, which judges the call.
 */
export function originChecks(invocation: Invocation, written: WrittenFiles, scope: WalkScope): void {
  const args = invocation.words.slice(1).map((word) => word.text);
  const registry = registryCodeFinding(invocation.program, args, scope.context.cwd);
  if (registry) scope.add(registry);
  const privilege = privilegeChangeFinding(invocation.program, args);
  if (privilege) scope.add(privilege);
  unreadProgramFindings(invocation.program, args, written, scope);
}

/**
 * The variables a command sets, by assignment or through env/sudo (`env GIT_CONFIG_COUNT=1 … git`,
 * `BASH_ENV=x.sh bash -c …`).
 */
export function commandEnvironment(
  assigns: { name: string; value: Word | null }[],
  invocations: Invocation[],
  context: PermissionContext,
): Map<string, string> {
  const environment = new Map<string, string>();
  for (const assign of assigns)
    if (assign.value) environment.set(assign.name, evaluateWord(assign.value, context).text);
  for (const word of invocations.slice(0, -1).flatMap((invocation) => invocation.words)) {
    const equals = word.text.indexOf("=");
    if (equals > 0 && !word.text.startsWith("-"))
      environment.set(word.text.slice(0, equals), word.text.slice(equals + 1));
  }
  return environment;
}

/** Startup files the command's environment names for the program it runs. */
export function startupOriginChecks(
  environment: Map<string, string>,
  program: string | undefined,
  written: WrittenFiles,
  scope: WalkScope,
): void {
  for (const [name, value] of environment) unreadStartupFile(name, value, program, written, scope);
}
