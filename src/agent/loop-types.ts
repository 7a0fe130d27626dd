import type { AttemptUsage, ModelMessage, ModelStepper } from "../model/types.js";
import type { StoredMessage } from "../storage/transcripts.js";
import type { AnyTool, ToolContext } from "../tools/types.js";
import type { BudgetCheck } from "./budget.js";
import type { ChangeReport, ChangeTracker } from "./completion/changes.js";
import type { CheckChange } from "./completion/check-changes.js";
import type { HeapGovernorSettings } from "./completion/compaction.js";
import type { VerificationCommand } from "./completion/verification.js";
import type { StallSettings } from "./completion/watchdog.js";
import type { AgentEventBody, EndCause, FileChange, Outcome, VerificationRecord } from "./events.js";

/**
 * What the agent loop may touch and what it returns, in a file of their own: the loop and the
 * completion modules under it (tool runner, governors, auto-continue) share them without importing
 * each other.
 */
export interface LoopDependencies {
  model: ModelStepper;
  tools: readonly AnyTool[];
  systemPrompt: string;
  /**
   * After a memory was forgotten during the task: the history as now stored (redacted) and a fresh
   * system prompt, so no later step sends the forgotten text; null when nothing was forgotten.
   */
  afterForget?(): Promise<{ history: StoredMessage[]; systemPrompt: string } | null>;
  maxSteps: number;
  maxOutputTokens: number;
  /** Tokens of history we may send (context window minus reply and system prompt). */
  historyBudgetTokens: number;
  signal: AbortSignal;
  emit(body: AgentEventBody): void;
  /** Writes messages to the transcript and returns them as stored. */
  persist(messages: ModelMessage[]): StoredMessage[];
  recordUsage(attempts: AttemptUsage[]): void;
  checkBudget(): BudgetCheck;
  /** User messages that arrived while the task ran (steering); each is taken once. */
  takeSteering(): string[];
  toolContext(callId: string): ToolContext;
  /** Stall watchdog limits; defaults 3 min / 8 min. */
  stall?: StallSettings;
  /** Records the files before the first mutating call; absent = no evidence gate (changes unknown). */
  changes?: ChangeTracker;
  /** The project's verification command (configured or detected); may throw on a broken project file. */
  verification?(): VerificationCommand | null;
  /** The chain started at another provider for the n-th rotation (narration guard); null when there is no other. */
  rotatedModel?(rotation: number): ModelStepper | null;
  /** Asks the task's owner (auto-continue before the last fresh budget). */
  askUser?(question: string, choices?: string[]): Promise<string>;
  heap?: HeapGovernorSettings;
  /** What the task changed about its own checks (judge fixed at the start); absent = not checked. */
  checkChanges?(report: ChangeReport): Promise<CheckChange[]>;
  /** Why a pass is an old build's (see completion/stale-output.ts), or null. */
  staleOutputs?(files: FileChange[]): Promise<string | null>;
  /** The user's explicit approval of changed checks. */
  acceptCheckChanges?(changes: CheckChange[]): Promise<boolean>;
  /** The task's folder is no project: changes complete with "no checks to run here". */
  plainFolder?: boolean;
  /** The project above the task's subfolder (see enclosingProject), named when no check is found. */
  enclosingProject?: { folder: string; manifest: string; check: string | null } | null;
  /** Called after every fact the evidence gate relies on (a change, a verification run). */
  recordEvidence?(): void;
}

export interface ToolErrorRecord {
  tool: string;
  error: string;
  step: number;
}

export interface LoopResult {
  endCause: EndCause;
  outcome: Outcome;
  text: string;
  reason?: string;
  filesChanged: FileChange[];
  verification: VerificationRecord[];
  checksChanged: CheckChange[];
  toolErrors: ToolErrorRecord[];
}

export type Ending = Omit<LoopResult, "filesChanged" | "verification" | "checksChanged" | "toolErrors"> & {
  filesChanged?: FileChange[];
  checksChanged?: CheckChange[];
};
