import { checkChangeAt } from "./check-targets.js";
import { type PathScope, pathFinding, sensitiveTarget } from "./command-paths.js";
import { protectedWriteTarget } from "./hardline.js";
import type { EvaluatedWord } from "./shell-words.js";

/**
 * A redirection's target (split out of command-walker.ts): `< F` reads F; `> F`, `>> F` write it,
 * held to the hardline (system folders, devices, secrets, Mercury's home), the path policy (outside
 * the workspace is a person's call) and the checks (an existing test).
 */
export function redirectTargetChecks(op: string, target: EvaluatedWord, scope: PathScope): void {
  if (op === "<<" || op === "<<-" || op === "<<<") return;
  if ((op === ">&" || op === "<&") && /^(\d+|-)$/.test(target.text)) return;
  if (!target.exact) return;
  if (op === "<" || op === "<&") {
    pathFinding(scope, target.text, "read", "command.redirect");
    return;
  }
  if (["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"].includes(target.text)) return;
  const hard = protectedWriteTarget(target.text, scope.context, scope.fsApi);
  if (hard) {
    scope.add(hard);
    return;
  }
  sensitiveTarget(scope, target.text);
  // A write outside the workspace is a person's call, never allow-all's (path.outside-roots).
  pathFinding(scope, target.text, "write", "command.redirect");
  checkChangeAt(target.text, scope, "ignored");
  scope.add({
    decision: "ask",
    rule: "command.redirect",
    reason: `output is redirected to ${target.text} (${op}), which writes a file`,
  });
}
