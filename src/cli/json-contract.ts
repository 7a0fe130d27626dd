/**
 * The command-line contract: a command given `--json` prints one JSON document on stdout, also when
 * it fails. Many commands report a failure as a line on stderr and an exit code (`schedule show
 * nope`, a bad `--limit`): a script reading stdout then got nothing to parse. Rather than trust each
 * command to remember, the program watches what a `--json` command writes: when it ends with a
 * non-zero exit code and has written nothing on stdout, the lines it wrote on stderr become
 * `{ok: false, error, exitCode}`. The stderr lines are still printed, for people.
 */
export interface JsonContractWatch {
  /** Prints the failure document when the command printed nothing on stdout; call once, at the end. */
  finish(exitCode: number): void;
}

export function wantsJson(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end === -1 ? args : args.slice(0, end)).includes("--json");
}

export function watchJsonContract(args: readonly string[]): JsonContractWatch | null {
  if (!wantsJson(args)) return null;
  let wroteStdout = false;
  const errorText: string[] = [];
  const stdoutWrite = process.stdout.write.bind(process.stdout);
  const stderrWrite = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((chunk: unknown, ...rest: never[]) => {
    if (chunkLength(chunk) > 0) wroteStdout = true;
    return stdoutWrite(chunk as string, ...rest);
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: unknown, ...rest: never[]) => {
    errorText.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    return stderrWrite(chunk as string, ...rest);
  }) as typeof process.stderr.write;
  return {
    finish(exitCode: number) {
      process.stdout.write = stdoutWrite;
      process.stderr.write = stderrWrite;
      if (exitCode === 0 || wroteStdout) return;
      const error = describeFailure(errorText.join(""));
      stdoutWrite(`${JSON.stringify({ ok: false, error, exitCode })}\n`);
    },
  };
}

function chunkLength(chunk: unknown): number {
  if (typeof chunk === "string") return chunk.length;
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}

/** The stderr text without colour codes, the "mercury: " prefix and commander's help after an error. */
function describeFailure(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing terminal colour codes
  const plain = text.replace(/\u001b\[[0-9;]*m/g, "");
  const helpStart = plain.search(/\n(?:Usage|Options|Commands):/);
  const message = (helpStart === -1 ? plain : plain.slice(0, helpStart))
    .split("\n")
    .map((line) =>
      line
        .replace(/^mercury: /, "")
        .replace(/^error: /, "")
        .trimEnd(),
    )
    .filter((line) => line.length > 0)
    .join("\n");
  return message.length > 0
    ? message
    : "the command failed without a message; run it without --json to see more";
}
