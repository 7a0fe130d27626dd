import type { ChildProcess } from "node:child_process";

/**
 * Collects a child's stdout and waits for what it prints — on its output events, never on a clock:
 * a loaded machine only makes the wait longer (the test's own timeout is the bound). Fails at once,
 * with everything printed, when the child exits before printing it.
 */
export function watchOutput(child: ChildProcess): {
  text(): string;
  until(test: (text: string) => boolean, what: string): Promise<string>;
} {
  let text = "";
  let stderr = "";
  const waiters = new Set<() => void>();
  let exited: number | null | undefined;
  child.stdout?.on("data", (chunk: Buffer) => {
    text += chunk.toString();
    for (const wake of [...waiters]) wake();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.on("close", (code) => {
    exited = code;
    for (const wake of [...waiters]) wake();
  });
  return {
    text: () => text,
    until: (test, what) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (test(text)) {
            waiters.delete(check);
            resolve(text);
          } else if (exited !== undefined) {
            waiters.delete(check);
            reject(
              new Error(
                `the process exited (${exited}) before printing ${what}\nstdout: ${text}\nstderr: ${stderr}`,
              ),
            );
          }
        };
        waiters.add(check);
        check();
      }),
  };
}
