import { Worker } from "node:worker_threads";

/**
 * Content matching for search_files, off the event loop. A regular expression from the model can
 * backtrack for minutes on one long line (`.*.*.*x`); on the main thread that would freeze Mercury,
 * its watchdog included. In a worker, a file that takes too long ends the search with a clear error.
 */

// Plain CommonJS so the worker runs the same under the test runner and from the built package.
const WORKER_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { readFileSync } = require("node:fs");
parentPort.on("message", (job) => {
  try {
    const regex = new RegExp(job.source, job.flags);
    const text = readFileSync(job.path, "utf8");
    if (text.includes("\\u0000")) {
      parentPort.postMessage({ id: job.id, matches: [], binary: true });
      return;
    }
    const lines = text.split(/\\r?\\n/);
    const matches = [];
    for (let i = 0; i < lines.length && matches.length < job.room; i++) {
      const line = lines[i];
      if (regex.test(line.slice(0, job.matchChars))) {
        const shown = line.length > job.lineChars ? line.slice(0, job.lineChars) + " [cut]" : line;
        matches.push(job.rel + ":" + (i + 1) + ": " + shown.trim());
      }
    }
    parentPort.postMessage({ id: job.id, matches, binary: false });
  } catch (error) {
    parentPort.postMessage({ id: job.id, error: String(error && error.message || error) });
  }
});
`;

export interface GrepResult {
  matches: string[];
  binary: boolean;
}

export class GrepWorker {
  private readonly worker = new Worker(WORKER_SOURCE, { eval: true });
  private nextId = 0;

  constructor(
    private readonly source: string,
    private readonly flags: string,
    private readonly perFileTimeoutMs: number,
  ) {}

  /** Matches one file; rejects (and the worker is stopped) when it takes longer than the limit. */
  grep(path: string, rel: string, room: number, signal: AbortSignal): Promise<GrepResult> {
    const id = this.nextId++;
    return new Promise<GrepResult>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.worker.off("message", onMessage);
        this.worker.off("error", onError);
      };
      const onMessage = (message: { id: number; matches?: string[]; binary?: boolean; error?: string }) => {
        if (message.id !== id) return;
        finish();
        if (message.error !== undefined) reject(new Error(message.error));
        else resolve({ matches: message.matches ?? [], binary: message.binary === true });
      };
      const onError = (error: Error) => {
        finish();
        reject(new Error(`The search worker failed: ${error.message}`));
      };
      const onAbort = () => {
        finish();
        reject(signal.reason);
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new SlowPatternError(
            `The pattern took more than ${this.perFileTimeoutMs} ms on ${rel}; it backtracks too much. Simplify it or set literal to true.`,
          ),
        );
      }, this.perFileTimeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.worker.on("message", onMessage);
      this.worker.on("error", onError);
      this.worker.postMessage({
        id,
        path,
        rel,
        source: this.source,
        flags: this.flags,
        room,
        matchChars: 10_000,
        lineChars: 300,
      });
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

export class SlowPatternError extends Error {
  override name = "SlowPatternError";
}
