import { fstatSync } from "node:fs";
import { ConfigError } from "../config/errors.js";

/**
 * Whether stdin carries data we may read: a pipe, a regular file, or a socket (what Node and some
 * shells use for a pipe). A terminal or a character device such as /dev/null (services, cron) is
 * never read, so a run with nothing piped in never waits for input.
 */
export function stdinIsReadable(): boolean {
  // fstat alone, not process.stdin.isTTY: a terminal is a character device (not read either way), and
  // creating process.stdin costs a run several milliseconds before its first model request.
  try {
    const stats = fstatSync(0);
    return stats.isFIFO() || stats.isFile() || stats.isSocket();
  } catch {
    // No descriptor 0 at all (closed by the parent): there is nothing to read.
    return false;
  }
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * The task `mercury run` works on: `-` reads it whole from stdin; otherwise piped input is extra
 * material appended after the words ("echo data | mercury run 'summarize this'").
 */
export async function taskWithStdin(task: string): Promise<string> {
  if (task === "-") {
    if (!stdinIsReadable()) {
      throw new ConfigError(
        "`mercury run -` reads the task from stdin, but stdin is not a pipe or a file; pipe the task in, e.g. `echo 'summarize README.md' | mercury run -`.",
      );
    }
    const text = (await readAll()).trim();
    if (text === "") throw new ConfigError("`mercury run -`: stdin was empty; there is no task to run.");
    return text;
  }
  if (!stdinIsReadable()) return nonEmpty(task);
  const extra = await readAll();
  if (extra.trim() === "") return nonEmpty(task);
  return `${task}\n\n<stdin>\n${extra.replace(/\s+$/, "")}\n</stdin>`;
}

/** An empty task would reach the model as an empty message and fail there, after retries. */
function nonEmpty(task: string): string {
  if (task.trim() !== "") return task;
  throw new ConfigError(
    "the task is empty: say what to do, e.g. `mercury run \"summarize README.md\"`, or pipe it in: `echo 'summarize README.md' | mercury run -`.",
  );
}
