import { describe, expect, it } from "vitest";
import { claimTask, liveOwner } from "../../src/agent/task-owner.js";
import { createApp } from "../../src/app/container.js";
import { beginLedgerRun, finishLedgerRun } from "../../src/cli/commands/run-ledger.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { oneAttemptHome, scriptedProviderEnv } from "../helpers/scripted-app.js";

/**
 * A task the ledger shows "running" always has its live owner on record: a daemon that starts (or
 * stops) while `mercury run` loads its model, or just after the agent returned, must not take it for
 * a crash and run it a second time (or cancel it).
 */
describe("the live owner of a `mercury run` task", () => {
  it("is recorded from the moment the ledger marks it running until the ledger records its end", () => {
    const home = oneAttemptHome("mercury-owner-");
    const app = createApp({ env: scriptedProviderEnv(home), modelFactory: () => new ScriptedModel([]) });
    try {
      const run = beginLedgerRun(app, { input: "do the work", cwd: home });
      // Between here and the agent's own start: the model loads (`await modelReady`).
      expect(liveOwner(home, run.taskId)).toEqual({ pid: process.pid });
      // The agent's own claim and release inside (Agent.run) leave the outer claim in place.
      const inner = claimTask(home, run.taskId);
      inner();
      expect(liveOwner(home, run.taskId)).toEqual({ pid: process.pid });
      finishLedgerRun(run, { outcome: "responded", endCause: "answered", text: "ok" } as never);
      expect(liveOwner(home, run.taskId)).toBeNull();
    } finally {
      app.close();
    }
  });
});
