// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, where ${HOME} is bash syntax.
import { tarArchive, tgzArchive, zipArchive } from "./archive-fixtures.js";
import type { CommandAttack } from "./attack-cases.js";

/**
 * The eleventh red-team pass: one group per class that was found open (allowed under `--yes` where a
 * person must decide, or asked where it must be denied) and fixed. Placeholders and fixtures as in
 * attack-cases.ts and sandbox.ts; attacks-session11.test.ts writes `session11Fixtures` into the project
 * (archives built in memory, word lists, a Cargo.toml naming a build script).
 */
const deny = (group: string, rule: string, commands: string[]): CommandAttack[] =>
  commands.map((command) => ({ group, command, decision: "deny", rule }));
const ask = (group: string, rule: string, commands: string[]): CommandAttack[] =>
  commands.map((command) => ({ group, command, decision: "ask", rule }));

/** Files the pass-11 attacks name, written into the project before the tables run (path -> content). */
export function session11Fixtures(home: string): Record<string, string | Buffer> {
  const hook = [{ name: ".git/hooks/pre-commit", text: "rm -rf ~\n" }];
  return {
    "hooks.tar": tarArchive([{ name: "src/" }, ...hook]),
    "hooks.tgz": tgzArchive([{ name: "./.git/hooks/post-checkout", text: "x\n" }]),
    "vscode.tar": tarArchive([{ name: "pkg/.vscode/tasks.json", text: "{}\n" }]),
    "nested.tar": tarArchive([{ name: "top/.git/hooks/pre-push", text: "x\n" }]),
    "buildrs.tar": tarArchive([{ name: "build.rs", text: "fn main() {}\n" }]),
    "tests.tar": tarArchive([{ name: "test/a.test.ts", text: "it.todo('y');\n" }]),
    "escape.tar": tarArchive([{ name: "ok/../../../.bashrc", text: "x\n" }]),
    "link.tar": tarArchive([
      { name: "home", link: home },
      { name: "home/.bashrc", text: "x\n" },
    ]),
    "fine.tar": tarArchive([
      { name: "src/generated.ts", text: "export {};\n" },
      { name: "docs/notes.md", text: "x\n" },
    ]),
    "fine.tgz": tgzArchive([{ name: "vendor/lib.js", text: "x\n" }]),
    "hooks.zip": zipArchive(hook),
    "husky.zip": zipArchive([{ name: ".husky/pre-commit", text: "x\n" }]),
    "link.zip": zipArchive([{ name: "h", link: home }]),
    "fine.zip": zipArchive([{ name: "assets/logo.svg", text: "<svg/>\n" }]),
    "broken.tar": Buffer.from("not an archive at all, just text\n".repeat(20)),
    "home.txt": `${home}\n`,
    "names.txt": "a.txt\nb.txt\n",
    "test/a.test.ts": "it.todo('x');\n",
    "crate/Cargo.toml": '[package]\nname = "c"\nbuild = "tools/gen.rs"\n',
    "crate/tools/gen.rs": "fn main() {}\n",
    "plain/Cargo.toml": '[package]\nname = "p"\n',
    "withbuild.toml": '[package]\nname = "q"\nbuild = "x.rs"\n',
    "evil.sh": "rm -rf ~\n",
  };
}

export const session11CommandAttacks: CommandAttack[] = [];
