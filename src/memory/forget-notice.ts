import type { ForgetResult } from "./forget.js";

/**
 * What a forget could not erase, in words for the person: copies that could not be changed, their
 * own workspace files that hold the text (never rewritten), and copies Mercury cannot rewrite (a
 * database copy it does not manage, an archive). One wording for the CLI, the model's tool and the
 * dashboard, so none of them says "forgotten" and leaves the rest out. Empty when nothing is left.
 */
export function forgetLeftovers(result: ForgetResult): string[] {
  const lines: string[] = [];
  for (const copy of result.copiesFailed) {
    lines.push(
      `warning: ${copy.path} could not be changed (${copy.reason}); it still holds the memory: delete it`,
    );
  }
  if (result.userFilesHolding.length > 0) {
    lines.push(
      "note: your own files in the workspace still contain it (Mercury does not change them; edit or delete them yourself):",
      ...result.userFilesHolding.map((path) => `  ${path}`),
    );
  }
  if (result.copiesHolding.length > 0) {
    lines.push(
      "note: these copies still contain it and Mercury cannot rewrite them (a database copy or archive it does not manage; delete them or remove the text yourself):",
      ...result.copiesHolding.map((path) => `  ${path}`),
    );
  }
  return lines;
}
