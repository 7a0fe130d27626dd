import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";
import { policyChecker } from "../helpers/policy-check.js";

/**
 * Pass-10 attacks through the built binary (`npm run build` first): `policy check --json` judges the
 * command as data and never runs it. Exit 1 is deny, 4 ask, 0 allow.
 */
describe("mercury policy check (built binary) on pass-10 attacks", () => {
  it("denies, asks and allows as the engine decides", async () => {
    const { home, userHome, workspace } = makeHome();
    const files: Record<string, string> = {
      "README.md": "# project\n",
      "proxy.conf": "Host *\n  ProxyCommand rm -rf ~\n",
      "wipe.awk": 'BEGIN { system("rm -rf ~") }\n',
      "home.txt": `${userHome}\n`,
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(workspace, path)), { recursive: true });
      writeFileSync(join(workspace, path), text);
    }
    const check = policyChecker({ home, userHome, workspace });
    for (const [command, code, rule] of [
      ["x='a[$(rm -rf ~)]'; echo $((x))", 1, "hardline.rm-root"],
      ["git --work-tree=~ reset --hard", 1, "hardline.rm-root"],
      ["parallel 'rm -rf {}' ::: ~", 1, "hardline.rm-root"],
      ["ssh -F proxy.conf host", 1, "hardline.rm-root"],
      ["xargs -a home.txt rm -rf", 1, "hardline.rm-root"],
      ["awk -f wipe.awk README.md", 1, "hardline.rm-root"],
      ["alias x='rm -rf'; x ~", 1, "hardline.rm-root"],
      ["printf 'rm -rf %s\\n' ~ | bash", 1, "hardline.rm-root"],
      ["echo x > build.rs", 4, "path.autorun"],
      ["git maintenance start", 4, "command.persistence"],
      ["cat README.md", 0, "command.readonly"],
    ] as const) {
      const result = await check(command, code);
      expect({ command, code: result.code, stderr: result.stderr }).toEqual({ command, code, stderr: "" });
      expect(JSON.parse(result.stdout)).toMatchObject({ rule });
    }
  });

  it("says --yes does not cover loading a library into the programs it runs", async () => {
    const { home, userHome, workspace } = makeHome();
    const result = await runCli(
      ["policy", "check", "--json", "--cwd", workspace, "--", "LD_PRELOAD=./x.so cat README.md"],
      { home, userHome, cwd: workspace },
    );
    expect(result.code).toBe(4);
    // command.eval: opaque, which allow-all never covers (containment.ts).
    expect(JSON.parse(result.stdout)).toMatchObject({ decision: "ask", rule: "command.eval" });
  });
});
