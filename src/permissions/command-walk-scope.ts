import type { PathScope } from "./command-paths.js";
import type { Analysis } from "./command-rules.js";
import type { Finding } from "./shell-words.js";

/** What the checks split out of the command walker need from it (command-operands.ts, command-feeds.ts). */
export interface WalkScope extends PathScope {
  /** How deep in nested shell code the walk is (`bash -c`, here-documents, script files). */
  depth: number;
  /** Judges shell text the engine reconstructed; its denials count. */
  innerDenies(script: string | null): void;
  /**
   * Code for an interpreter: its literal shell commands, secrets and deletions of home meet the
   * hardline. `keep` picks which findings count (a script file on disk: only hardline denials).
   */
  inlineCode(code: string, keep?: (finding: Finding) => boolean): void;
  /** Parses and judges shell text one level deeper, into `out`. */
  analyze(source: string, out: Analysis): void;
}
