import { feedInvocations, inputWords } from "./command-feeds.js";
import { commandValuedOptions } from "./command-options.js";
import { pathFinding } from "./command-paths.js";
import { readScript } from "./command-stdin.js";
import { escapedCommands } from "./command-stdin-runners.js";
import type { WalkScope } from "./command-walk-scope.js";
import { embeddedWriteTargets } from "./embedded-writes.js";
import { hardlineCheck, protectedWriteTarget } from "./hardline.js";
import {
  type ProgramFileKind,
  programFiles,
  sedExecCommands,
  sshConfigCommands,
  sshConfigIncludes,
  vimShellCommands,
} from "./option-files.js";
import type { EvaluatedWord, Finding } from "./shell-words.js";
import type { Invocation } from "./wrappers.js";
import type { WrittenFiles } from "./written-files.js";

/**
 * A program file this command writes with content nobody can read before it runs (`curl -o x.sh …;
 * sh x.sh`, `base64 -d > p.awk; awk -f p.awk`): what runs is unknown, so never `--yes`'s (pass 10).
 */
export function unknownFileRun(file: string): Finding {
  return {
    decision: "ask",
    rule: "command.eval",
    reason: `${file} is written earlier in this command with content that cannot be read before it runs, and then run`,
  };
}

/** `awk -f F`, `sed -f F`, `ssh -F F`, `gdb -x F`, `xargs -a F`, `find -files0-from F`… (option-files.ts). */
export function programFileChecks(
  invocation: Invocation,
  invocations: Invocation[],
  written: WrittenFiles,
  scope: WalkScope,
): void {
  const args = invocation.words.slice(1).map((word) => word.text);
  const cwd = scope.context.cwd;
  for (const { file, kind } of programFiles(invocation.program, args)) {
    if (written.unknown(file, cwd)) {
      scope.add(unknownFileRun(file));
      continue;
    }
    const text = written.script(file, cwd);
    // `xargs -a F`, `find -files0-from F`: the words that build the command come from a file the
    // engine cannot read (missing, too large): what runs is unknown until it runs.
    if (text === null && (kind === "words" || kind === "roots")) {
      scope.add({
        decision: "ask",
        rule: "command.eval",
        reason: `${invocation.program} takes the words of its command from ${file}, which cannot be read before it runs`,
      });
      continue;
    }
    if (text === null) continue;
    judgeProgramFile(kind, text, { invocation, invocations, scope, cwd });
  }
}

interface ProgramFileSite {
  invocation: Invocation;
  invocations: Invocation[];
  scope: WalkScope;
  cwd: string;
}

function judgeProgramFile(kind: ProgramFileKind, text: string, site: ProgramFileSite): void {
  const { scope } = site;
  switch (kind) {
    case "shell":
      scope.innerDenies(text);
      return;
    case "code":
      scope.inlineCode(text, (finding) => finding.decision === "deny");
      return;
    case "escapes":
      scope.innerDenies(escapedCommands(text));
      return;
    case "vim":
      for (const command of vimShellCommands(text)) scope.innerDenies(command);
      return;
    case "ssh-config": {
      for (const command of sshConfigCommands(text)) scope.innerDenies(command);
      for (const included of sshConfigIncludes(text)) {
        const more = readScript(included, site.cwd);
        if (more !== null) for (const command of sshConfigCommands(more)) scope.innerDenies(command);
      }
      return;
    }
    case "sed": {
      const executed = sedExecCommands(text);
      for (const command of executed.commands) scope.innerDenies(command);
      for (const command of commandValuedOptions("sed", ["-e", text]).scripts) scope.innerDenies(command);
      if (executed.runsPatternSpace)
        scope.add({
          decision: "ask",
          rule: "command.eval",
          reason: "the sed script's `e` command runs the text of the input as a command",
        });
      for (const target of embeddedWriteTargets("sed", ["-e", text])) {
        const hard = protectedWriteTarget(target, scope.context, scope.fsApi);
        if (hard) scope.add(hard);
        else pathFinding(scope, target, "write", "command.write");
      }
      return;
    }
    case "words":
      feedInvocations(site.invocations, inputWords(text), scope);
      return;
    case "roots": {
      // `find -files0-from F -delete`: the folders named in F are find's roots.
      const roots = text.split("\0").filter((root) => root !== "");
      const rest = site.invocation.words.slice(1).filter((word, index, all) => {
        const previous = all[index - 1]?.text;
        return word.text !== "-files0-from" && previous !== "-files0-from";
      });
      const words = [
        site.invocation.words[0] as EvaluatedWord,
        ...roots.map((root) => ({ text: root.trim(), exact: true, glob: false, findings: [] })),
        ...rest,
      ];
      const hard = hardlineCheck({ ...site.invocation, words }, scope.context, scope.fsApi);
      if (hard) scope.add(hard);
      return;
    }
  }
}
