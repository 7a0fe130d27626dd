import { execFileSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { runTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Done. All tests pass." }));

/** build.js copies src/value.js into dist/ beside a check that wants the value 1. */
const buildScript = [
  'const fs = require("node:fs");',
  'fs.mkdirSync("dist", { recursive: true });',
  'fs.copyFileSync("src/value.js", "dist/value.js");',
  'fs.writeFileSync("dist/check.js", "const v = require(\\"./value.js\\"); if (v !== 1) { console.log(\\"check: value is \\" + v); process.exit(1); } console.log(\\"check passed\\");\\n");',
  "",
].join("\n");

/** A project whose `test` runs the built dist/check.js; built once, as a developer's checkout would be. */
function builtProject(scripts: Record<string, string>): string {
  const cwd = gitProject({
    "package.json": JSON.stringify({ name: "p", scripts }),
    ".gitignore": "dist/\n",
    "build.js": buildScript,
  });
  mkdirSync(join(cwd, "src"));
  execFileSync("sh", ["-c", "echo 'module.exports = 1;' > src/value.js && node build.js"], { cwd });
  execFileSync("sh", ["-c", "git add -A && git -c user.email=t@t -c user.name=t commit -qm src"], { cwd });
  return cwd;
}

const breakValue = { name: "write_file", input: { path: "src/value.js", content: "module.exports = 2;\n" } };

/**
 * A check that runs build output nothing rebuilt passes with the old build: `node dist/check.js` after
 * a change to src/ that breaks the value "verified" it. Found in session 8: completed.
 */
describe("a check that runs stale build output (built binary)", { timeout: 300_000 }, () => {
  it("a pass from the old build is never completed: the model is told, then the task pauses", async () => {
    const cwd = builtProject({ build: "node build.js", test: "node dist/check.js" });
    const fake = await server({ replies: [{ toolCalls: [breakValue] }, ...claims(5)] });
    const { report } = await runTask("set the value to 2", cwd, fake.url);
    expect(report.outcome).toBe("paused");
    expect(report.verification.at(-1)).toMatchObject({ command: "npm test", exitCode: 0 });
    expect(report.reason).toContain(
      "runs dist/check.js, which nothing rebuilt since before the task's first change",
    );
    // The model was told what to do in a fix round.
    const told = JSON.stringify(fake.chatRequests());
    expect(told).toContain("Rebuild what the check runs");
  });

  it("after the model rebuilds, the check runs on the new build and the failure shows", async () => {
    const cwd = builtProject({ build: "node build.js", test: "node dist/check.js" });
    const fake = await server({
      replies: [
        { toolCalls: [breakValue] },
        { text: "Done." },
        { toolCalls: [{ name: "run_command", input: { command: "npm run build" } }] },
        ...claims(5),
      ],
    });
    const { report } = await runTask("set the value to 2", cwd, fake.url);
    expect(report.outcome).toBe("failed");
    expect(report.verification.at(-1)).toMatchObject({ command: "npm test", exitCode: 1 });
  });

  it("a check whose pre-script rebuilds is not stale: a good change completes", async () => {
    const cwd = builtProject({ pretest: "node build.js", test: "node dist/check.js" });
    const fake = await server({
      replies: [
        {
          toolCalls: [
            { name: "write_file", input: { path: "src/other.js", content: "module.exports = 3;\n" } },
          ],
        },
        ...claims(3),
      ],
    });
    const { report } = await runTask("add other.js", cwd, fake.url);
    expect(report.outcome).toBe("completed");
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
  });
});
