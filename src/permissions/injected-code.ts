import type { Finding } from "./shell-words.js";

/**
 * Native code loaded into programs the engine judged by their names (pass 10): `LD_PRELOAD=./x.so cat
 * README.md` is not `cat` any more, and `enable -f ./x.so ls` replaces the shell's `ls` with a builtin
 * from a shared object. Nothing of what runs can be read before it runs, so the command is opaque
 * (`command.eval`: a person's call, never `--yes`'s), like `eval`. `LD_LIBRARY_PATH` stays an ordinary
 * assignment: it only changes where a program's own libraries are found (running a freshly built
 * binary with `LD_LIBRARY_PATH=./build` is everyday work).
 */
const preloadVariables =
  /^(LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES|DYLD_LIBRARY_PATH|DYLD_FRAMEWORK_PATH)$/;

export function injectedLibraryFinding(name: string): Finding | null {
  if (!preloadVariables.test(name)) return null;
  return {
    decision: "ask",
    rule: "command.eval",
    reason: `${name} loads a library into every program the command starts; what those programs then do cannot be read before they run`,
  };
}

/** `enable -f FILE NAME`: a builtin loaded from a shared object. */
export function loadedBuiltinFinding(program: string, args: string[]): Finding | null {
  if (program !== "enable") return null;
  const loads = args.some((arg) => arg === "-f" || /^-[A-Za-z]*f/.test(arg));
  if (!loads) return null;
  return {
    decision: "ask",
    rule: "command.eval",
    reason:
      "enable -f loads a shell builtin from a shared object; what it does (and which command names it takes over) cannot be read before it runs",
  };
}

/** The variable names a command's words assign (`export LD_PRELOAD=x`, `env LD_AUDIT=x ls`). */
export function assignedNames(words: string[]): string[] {
  return words.flatMap((word) => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(word);
    return match ? [match[1] as string] : [];
  });
}
