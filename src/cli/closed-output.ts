/**
 * A reader that leaves early (`mercury logs | head -1`, a pager quit with q) closes the pipe, and the
 * next write fails with EPIPE. Node reports that as an unhandled 'error' event: a stack trace on the
 * terminal and exit 1, for what is the reader's choice, not a failure. Here the stream is marked
 * closed and later writes to it are dropped, so the command ends as it would have (a `mercury run`
 * still finishes its task and records it, instead of being left "running" like a crash), and
 * commands that would write forever (`logs -f`) stop through `onOutputClosed`.
 * Any other write error is still thrown.
 */

import { writeSync } from "node:fs";

const closedListeners = new Set<() => void>();
let stdoutClosed = false;
let stderrClosed = false;
let streamsInUse = false;

/** Calls `listener` once when stdout's reader has gone (at once if it has already). */
export function onOutputClosed(listener: () => void): () => void {
  if (stdoutClosed) {
    listener();
    return () => {};
  }
  closedListeners.add(listener);
  return () => closedListeners.delete(listener);
}

function outputClosed(isStdout: boolean): void {
  if (!isStdout) {
    stderrClosed = true;
    return;
  }
  if (stdoutClosed) return;
  stdoutClosed = true;
  for (const listener of [...closedListeners]) listener();
  closedListeners.clear();
}

function tolerateClosedReader(stream: NodeJS.WriteStream, isStdout: boolean): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    // The reader is gone: nothing written from now on can reach anyone.
    stream.write = (() => true) as typeof stream.write;
    outputClosed(isStdout);
  });
}

/**
 * Installed by the program's entry (src/cli.ts) before anything writes through `process.stdout` or
 * `process.stderr`; a second call does nothing.
 */
export function tolerateClosedOutput(): void {
  if (streamsInUse) return;
  streamsInUse = true;
  tolerateClosedReader(process.stdout, true);
  tolerateClosedReader(process.stderr, false);
}

/** Whether output went (or may go) through the stream objects, which an exit must wait for. */
export function outputStreamsInUse(): boolean {
  return streamsInUse;
}

/**
 * Writes `text` to stdout (1) or stderr (2) with write(2) itself, for `memory add|search`
 * (memory-fast.ts): touching `process.stdout` builds a stream object (for a pipe, a socket with the
 * stream machinery behind it), about 6 ms of a command whose target is twice `node -e 0`
 * (BENCHMARKS.md, issue 11 memory latency). Synchronous: the text is with the OS on return. A reader
 * that has gone (EPIPE) ends output as `tolerateClosedOutput` does; a descriptor its opener made
 * non-blocking (EAGAIN) gets the rest through the stream, which waits until it can write.
 */
export function writeDirect(descriptor: 1 | 2, text: string): void {
  const isStdout = descriptor === 1;
  if (isStdout ? stdoutClosed : stderrClosed) return;
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(descriptor, bytes, offset);
    } catch (error) {
      const code = error instanceof Error && "code" in error ? error.code : undefined;
      if (code === "EPIPE") {
        outputClosed(isStdout);
        return;
      }
      if (code !== "EAGAIN") throw error;
      tolerateClosedOutput();
      (isStdout ? process.stdout : process.stderr).write(bytes.subarray(offset));
      return;
    }
  }
}
