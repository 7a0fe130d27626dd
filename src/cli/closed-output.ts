/**
 * A reader that leaves early (`mercury logs | head -1`, a pager quit with q) closes the pipe, and the
 * next write fails with EPIPE. Node reports that as an unhandled 'error' event: a stack trace on the
 * terminal and exit 1, for what is the reader's choice, not a failure. Here the stream is marked
 * closed and later writes to it are dropped, so the command ends as it would have (a `mercury run`
 * still finishes its task and records it, instead of being left "running" like a crash), and
 * commands that would write forever (`logs -f`) stop through `onOutputClosed`.
 * Any other write error is still thrown.
 */

const closedListeners = new Set<() => void>();
let stdoutClosed = false;

/** Calls `listener` once when stdout's reader has gone (at once if it has already). */
export function onOutputClosed(listener: () => void): () => void {
  if (stdoutClosed) {
    listener();
    return () => {};
  }
  closedListeners.add(listener);
  return () => closedListeners.delete(listener);
}

function tolerateClosedReader(stream: NodeJS.WriteStream, isStdout: boolean): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    // The reader is gone: nothing written from now on can reach anyone.
    stream.write = (() => true) as typeof stream.write;
    if (!isStdout || stdoutClosed) return;
    stdoutClosed = true;
    for (const listener of [...closedListeners]) listener();
    closedListeners.clear();
  });
}

/** Installed once, first thing, by the program's entry (src/cli.ts). */
export function tolerateClosedOutput(): void {
  tolerateClosedReader(process.stdout, true);
  tolerateClosedReader(process.stderr, false);
}
