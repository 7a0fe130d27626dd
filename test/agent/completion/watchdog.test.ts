import { describe, expect, it } from "vitest";
import { StallWatchdog } from "../../../src/agent/completion/watchdog.js";
import type { AuthorizationRequest, AuthorizationResult } from "../../../src/tools/types.js";
import { createHarness } from "../../helpers/agent-harness.js";
import { makeProject, notices, realTools } from "./fixtures.js";

const stall = { softMs: 150, hardMs: 500 };
const command = (cmd: string) => ({ toolCalls: [{ name: "run_command", input: { command: cmd } }] });

describe("stall watchdog", () => {
  it("pauses a silent provider: pulse first, then paused / aborted with 'stalled: no activity for N s'", async () => {
    const harness = createHarness({ replies: [[{ hang: true }]], settings: { stall } });
    const started = Date.now();
    const report = await harness.run("hello");
    expect(report).toMatchObject({ outcome: "paused", endCause: "aborted" });
    expect(report.reason).toMatch(/^stalled: no activity for 0\.[5-9] s/);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(notices(harness.events).some((n) => n.startsWith("still working"))).toBe(true);
  });

  it("a provider that streams some tokens and then goes silent is stalled too", async () => {
    const harness = createHarness({
      replies: [[{ hang: true, text: ["par", "tial"] }]],
      settings: { stall },
    });
    const report = await harness.run("hello");
    expect(report).toMatchObject({ outcome: "paused", endCause: "aborted" });
    expect(report.text).toBe("");
  });

  it("does not stop a command that keeps streaming output longer than the hard limit", async () => {
    const cwd = makeProject({});
    const harness = createHarness({
      tools: realTools(),
      settings: { stall },
      replies: [
        [
          command("for i in 1 2 3 4 5 6 7 8 9 10; do echo tick $i; sleep 0.15; done"),
          { text: "It ticked 10 times." },
        ],
      ],
    });
    const started = Date.now();
    const report = await harness.run("tick", { cwd });
    expect(Date.now() - started).toBeGreaterThan(1400);
    expect(report).toMatchObject({ outcome: "responded", endCause: "text-stop" });
    const result = harness.events.find((event) => event.type === "tool-result");
    expect(result).toMatchObject({ ok: true });
  });

  it("stops a command that is silent past the hard limit, and pauses", async () => {
    const cwd = makeProject({});
    const harness = createHarness({
      tools: realTools(),
      settings: { stall },
      replies: [[command("sleep 5")]],
    });
    const started = Date.now();
    const report = await harness.run("sleep", { cwd });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(report).toMatchObject({ outcome: "paused", endCause: "aborted" });
    expect(report.reason).toContain("stalled");
  });

  it("waiting for the user's approval is not a stall", async () => {
    const cwd = makeProject({});
    // The approval outlasts the hard limit; the limit itself leaves the sandboxed `echo` that follows
    // room to start on a loaded machine (with 500 ms it was stalled there once, at load 15).
    const roomy = { softMs: 1000, hardMs: 3000 };
    const slowApproval = async (_request: AuthorizationRequest): Promise<AuthorizationResult> => {
      await new Promise((resolve) => setTimeout(resolve, roomy.hardMs + 500));
      return { allowed: true, rule: "test.approved-late" };
    };
    const harness = createHarness({
      tools: realTools(),
      settings: { stall: roomy },
      replies: [[command("echo approved"), { text: "Ran it." }]],
    });
    const report = await harness.run("run", { cwd, authorizerFor: () => slowApproval });
    expect(report).toMatchObject({ outcome: "responded" });
  });

  it("a user stop is cancelled, not a stall", async () => {
    const harness = createHarness({
      replies: [[{ hang: true }]],
      settings: { stall: { softMs: 5000, hardMs: 10_000 } },
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("user stop")), 50);
    const report = await harness.run("hang", { signal: controller.signal });
    expect(report).toMatchObject({ outcome: "cancelled", endCause: "aborted" });
  });

  it("the watchdog fires once at the hard limit and not while suspended", async () => {
    const pulses: number[] = [];
    const dog = new StallWatchdog({ softMs: 20, hardMs: 60 }, (idle) => pulses.push(idle));
    dog.start();
    await dog.whileWaiting(() => new Promise((resolve) => setTimeout(resolve, 120)));
    expect(dog.fired).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(dog.fired).toBe(true);
    expect(pulses).toHaveLength(1);
    dog.stop();
  });
});
