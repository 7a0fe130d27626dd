import type { StoredMessage } from "../../storage/transcripts.js";

export const keepNewestMessages = 8;
/** Tool results never shortened or summarized away (activated skill text). */
export const keptWhole = "activate_skill";
export const compactAboveBytes = 8 * 1024;
const keepEachSide = 2 * 1024;

/**
 * Shrinks old tool results in what the task holds and sends: beyond the newest `keepNewestMessages`
 * messages, a tool result over 8 KB keeps its head and tail around a marker. The database keeps
 * the full transcript. Returns how many results were shortened.
 */
export function compactToolResults(history: StoredMessage[]): number {
  let compacted = 0;
  const end = Math.max(0, history.length - keepNewestMessages);
  for (let index = 0; index < end; index++) {
    const entry = history[index] as StoredMessage;
    const message = entry.message;
    if (message.role !== "tool") continue;
    let changed = false;
    const content = message.content.map((part) => {
      // A loaded skill's instructions stay whole: the task is following them.
      if (part.type !== "tool-result" || part.toolName === keptWhole) return part;
      const output = part.output;
      if (
        (output.type !== "text" && output.type !== "error-text") ||
        Buffer.byteLength(output.value) <= compactAboveBytes
      )
        return part;
      changed = true;
      return { ...part, output: { ...output, value: shorten(output.value) } };
    });
    if (!changed) continue;
    compacted += 1;
    const next = { ...message, content };
    history[index] = { ...entry, message: next, tokenEstimate: Math.ceil(JSON.stringify(next).length / 4) };
  }
  return compacted;
}

export function shorten(value: string): string {
  const omitted = value.length - 2 * keepEachSide;
  return `${value.slice(0, keepEachSide)}\n[… ${omitted} characters of old tool output omitted to save memory; rerun the tool to see them …]\n${value.slice(-keepEachSide)}`;
}

export interface HeapGovernorSettings {
  /** Bytes of V8 heap above which old tool output is compacted. */
  limitBytes: number;
  /** Injectable for tests; defaults to process.memoryUsage().heapUsed. */
  heapUsed(): number;
  /** Consecutive checks still over the limit after compacting before the task pauses. */
  sustainedChecks: number;
}
