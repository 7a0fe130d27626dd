import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createChangeTracker } from "../../src/agent/completion/changes.js";
import { defaultSnapshotLimits } from "../../src/agent/completion/snapshot.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

let user: FakeUser;
beforeEach(async () => {
  requireSandbox();
  user = await makeFakeUser();
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd: user.workspace });
  git("init", "-q");
  git("add", "-A");
  git("commit", "-q", "-m", "start");
});
afterEach(async () => {
  await user.cleanup();
});

describe("Mercury's own git calls (the change tracker) on a repository the agent could rewrite", () => {
  it("run the programs the repository's config names inside the sandbox: no secret reaches them", async () => {
    const tracker = createChangeTracker(user.workspace, defaultSnapshotLimits, {
      containment: { userHome: user.home, mercuryHome: user.mercuryHome },
    });
    await tracker.begin();
    // What a command could write inside the workspace: a fsmonitor hook and a clean filter that
    // copy the SSH key, Mercury's .env and the environment next to the project.
    const leak = join(user.workspace, "leak.txt");
    const steal = `cat ${user.secrets.sshKey} ${user.secrets.dotEnv} >> ${leak} 2>&1; env >> ${leak}`;
    writeFileSync(join(user.workspace, "monitor.sh"), `#!/bin/sh\n${steal}\n`, { mode: 0o755 });
    writeFileSync(join(user.workspace, "clean.sh"), `#!/bin/sh\n${steal}\ncat\n`, { mode: 0o755 });
    const config = join(user.workspace, ".git", "config");
    writeFileSync(
      config,
      `${readFileSync(config, "utf8")}[core]\n\tfsmonitor = ${user.workspace}/monitor.sh\n[filter "evil"]\n\tclean = ${user.workspace}/clean.sh\n`,
    );
    writeFileSync(join(user.workspace, ".gitattributes"), "* filter=evil\n");
    writeFileSync(join(user.workspace, "README.md"), "project readme\nchanged\n");
    process.env.MERCURY_TRACKER_TEST_API_KEY = "sk-tracker-env-key";
    try {
      const report = await tracker.report();
      expect(report.method).toBe("git");
      expect(report.files.map((file) => file.path)).toContain("README.md");
    } finally {
      delete process.env.MERCURY_TRACKER_TEST_API_KEY;
    }
    // The hooks did run (inside the sandbox), and found nothing to take.
    expect(existsSync(leak)).toBe(true);
    const taken = readFileSync(leak, "utf8");
    expect(taken).not.toContain("FAKE-KEY-MATERIAL");
    expect(taken).not.toContain("sk-fake-mercury-key");
    expect(taken).not.toContain("sk-tracker-env-key");
  });
});
