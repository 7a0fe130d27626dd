import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createHarness } from "../../helpers/agent-harness.js";
import { makeProject, realTools } from "./fixtures.js";

/**
 * Session 12: evidence from before an interruption. A run killed between the model's final text and
 * the outcome write (or during `continue`, or a daemon restart) leaves its verification records in the
 * ledger; the resumed run judges with them. Where the change picture cannot fingerprint the files (a
 * snapshot past its limits, a failed baseline), the gate used to reuse the earlier pass by ordering
 * alone, though the files changed by hand while the task was interrupted.
 */
const check =
  "const fs=require('node:fs');" +
  "if(fs.readFileSync('value.txt','utf8').trim()==='ok'){console.log('1 passing');process.exit(0)}" +
  "console.log('1 failing: value.txt is not ok');process.exit(1)";

/**
 * A home whose baselines folder cannot be made (a file sits there: a full or broken disk alike), so
 * the task's change picture is never confirmed and no run of it has a fingerprint.
 */
function brokenBaselineHome(): string {
  const home = mkdtempSync(join(tmpdir(), "mercury-s12-home-"));
  writeFileSync(join(home, "baselines"), "not a folder");
  return home;
}
describe("a pass recorded before an interruption is not evidence for files it cannot be matched to", () => {
  it("a resumed run over an unconfirmed picture runs the check again (files changed by hand meanwhile)", async () => {
    const cwd = makeProject({ "check.js": check, "value.txt": "old\n" });
    const taskId = "task-session12-unconfirmed";
    const harness = createHarness({
      tools: realTools(),
      settings: { verifyCommand: "node check.js", maxSteps: 8, home: brokenBaselineHome() },
      replies: [
        [
          { toolCalls: [{ name: "write_file", input: { path: "value.txt", content: "ok\n" } }] },
          { toolCalls: [{ name: "run_command", input: { command: "node check.js" } }] },
          { text: "Done: value.txt is ok and the check passes." },
        ],
      ],
    });
    const first = await harness.run("make value.txt ok", { cwd, taskId, sessionId: "s12-a" });
    // The run's own pass right after its change, by ordering: completed (the picture is unconfirmed).
    expect(first.outcome).toBe("completed");
    expect(first.verification).toEqual([{ command: "node check.js", exitCode: 0 }]);

    // While the task was interrupted (killed before its outcome was written, say), the file changed.
    writeFileSync(join(cwd, "value.txt"), "broken\n");
    const model = harness.models[0];
    if (!model) throw new Error("no scripted model");
    model.push(
      { text: "Continuing: it was already done, all tests pass." },
      { text: "Done." },
      { text: "Done." },
      { text: "Done." },
    );
    const resumed = await harness.run("continue", { cwd, taskId, sessionId: "s12-a" });
    expect(resumed.outcome).not.toBe("completed");
    // The check ran again on today's files and its real result is the task's.
    expect(resumed.verification.at(-1)).toEqual({ command: "node check.js", exitCode: 1 });
    expect(resumed.reason).toContain("node check.js");
  });

  it("a check the user stopped (Ctrl+C during the judge) is no failure: the continued run checks again", async () => {
    const cwd = makeProject({ "check.js": check, "value.txt": "old\n" });
    const taskId = "task-session12-ctrl-c-judge";
    const stop = new AbortController();
    const harness = createHarness({
      tools: realTools(),
      settings: { verifyCommand: "node check.js", maxSteps: 8 },
      replies: [
        [
          { toolCalls: [{ name: "write_file", input: { path: "value.txt", content: "ok\n" } }] },
          { text: "Done." },
        ],
      ],
    });
    // Ctrl+C as the gate's own check starts (its calls are Mercury's: `mercury-<step>-<n>`).
    const unsubscribe = harness.bus.subscribe((event) => {
      if (event.type === "tool-call" && event.callId.startsWith("mercury-")) stop.abort();
    });
    const first = await harness.run("make value.txt ok", {
      cwd,
      taskId,
      sessionId: "s12-b",
      signal: stop.signal,
    });
    unsubscribe();
    expect(first.outcome).toBe("cancelled");

    const model = harness.models[0];
    if (!model) throw new Error("no scripted model");
    model.push({ text: "Done." }, { text: "Done." }, { text: "Done." });
    const resumed = await harness.run("continue", { cwd, taskId, sessionId: "s12-b" });
    // The interrupted check was not a failed one: the files pass, and no fix round was asked for.
    expect(resumed.outcome).toBe("completed");
    expect(resumed.verification.at(-1)).toEqual({ command: "node check.js", exitCode: 0 });
    expect(model.remaining).toBe(2);
  });

  it("a check that rewrites the files it checked is no pass for the files it left", async () => {
    // The check passes on value.txt, then runs every file in hooks/: a hook the task adds can break
    // the files after the assertions ran (an afterAll writing source, say).
    const runner = `${check.replace("process.exit(0)", "for(const f of fs.readdirSync('hooks'))require('./hooks/'+f);process.exit(0)")}`;
    const cwd = makeProject({ "check.js": runner, "value.txt": "old\n", "hooks/keep.js": "" });
    const harness = createHarness({
      tools: realTools(),
      settings: { verifyCommand: "node check.js", maxSteps: 8 },
      replies: [
        [
          { toolCalls: [{ name: "write_file", input: { path: "value.txt", content: "ok\n" } }] },
          {
            toolCalls: [
              {
                name: "write_file",
                input: {
                  path: "hooks/after.js",
                  content: "require('node:fs').writeFileSync('value.txt','broken\\n')",
                },
              },
            ],
          },
          { toolCalls: [{ name: "run_command", input: { command: "node check.js" } }] },
          { text: "Done: the check passes." },
          { text: "Done." },
          { text: "Done." },
        ],
      ],
    });
    const report = await harness.run("make value.txt ok", { cwd, taskId: "task-session12-rewrites" });
    expect(report.verification[0]).toEqual({ command: "node check.js", exitCode: 0 });
    // The files the task leaves fail the check: a fresh run says so.
    expect(report.outcome).not.toBe("completed");
    expect(report.verification.at(-1)).toEqual({ command: "node check.js", exitCode: 1 });
  });
});
