import { describe, expect, it } from "vitest";
import type { MemoryModelResult } from "../../../src/memory/extraction/model.js";
import {
  BACKOFF_BASE_MS,
  MAX_ATTEMPTS,
  runPendingExtractions,
} from "../../../src/memory/extraction/runner.js";
import { makeHarness, ScriptedModel } from "../store/harness.js";

const EXCERPT = "user: I'm allergic to peanuts, please remember that.\nassistant: Noted, no peanuts.";
const VALID = JSON.stringify({
  memories: [
    {
      kind: "constraint",
      text: "The user is allergic to peanuts",
      evidence: "user-stated",
      importance: "critical",
      sourceQuote: "I'm allergic to peanuts",
    },
  ],
});

function enqueue(service: ReturnType<typeof makeHarness>["service"], excerpt = EXCERPT) {
  return service.enqueueExtraction({
    userKey: "owner",
    sessionId: "s1",
    messageIds: [1, 2],
    transcriptExcerpt: excerpt,
  });
}

function memoryRows(harness: ReturnType<typeof makeHarness>): number {
  return (harness.database.prepare("SELECT COUNT(*) AS n FROM memories").get() as { n: number }).n;
}

describe("extraction", () => {
  it("stores valid output with provenance and clears the excerpt from the finished job", async () => {
    const model = new ScriptedModel(() => ({ ok: true, text: `\`\`\`json\n${VALID}\n\`\`\`` }));
    const harness = makeHarness({ model });
    const job = enqueue(harness.service);
    const summary = await harness.service.runPendingExtractions();
    expect(summary).toMatchObject({ done: 1, stored: 1, failed: 0, deferred: 0 });
    const [memory] = harness.service.list({ userKey: "owner" });
    expect(memory).toMatchObject({
      text: "The user is allergic to peanuts",
      evidence: "user-stated",
      importance: "critical",
      sourceSessionId: "s1",
      sourceMessageIds: [1, 2],
      sourceQuote: "I'm allergic to peanuts",
    });
    expect(harness.service.jobs.get(job.id)).toMatchObject({ status: "done", transcriptExcerpt: null });
    expect(harness.receipts.map((receipt) => receipt.text)).toEqual([
      "Remembered: The user is allergic to peanuts",
    ]);
  });

  it("repairs once: the second call sees the error and its answer is used", async () => {
    const model = new ScriptedModel((_request, call) =>
      call === 1 ? { ok: true, text: '{"memories":[{"kind":"constraint"' } : { ok: true, text: VALID },
    );
    const harness = makeHarness({ model });
    enqueue(harness.service);
    await harness.service.runPendingExtractions();
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.prompt).toMatch(/rejected[\s\S]*not valid JSON/);
    expect(memoryRows(harness)).toBe(1);
  });

  it("rejects invented scores, fabricated quotes and missing fields, records the failure and stores nothing", async () => {
    const bad = [
      VALID.replace('"importance":"critical"', '"importance":"critical","confidence":0.93'),
      VALID.replace("I'm allergic to peanuts\"", 'I said I hate peanuts"'),
      VALID.replace(',"importance":"critical"', ""),
    ];
    for (const output of bad) {
      const model = new ScriptedModel(() => ({ ok: true, text: output }));
      const harness = makeHarness({ model });
      const job = enqueue(harness.service);
      const summary = await harness.service.runPendingExtractions();
      expect(summary.failed).toBe(1);
      expect(model.requests).toHaveLength(2);
      expect(memoryRows(harness)).toBe(0);
      const failures = harness.service.jobs.recentFailures(5);
      expect(failures).toHaveLength(1);
      expect(failures[0]?.rawOutput).toContain(output);
      expect(failures[0]?.reason).toMatch(/invalid output after one repair/);
      expect(harness.service.jobs.get(job.id).status).toBe("failed");
      expect(harness.receipts.map((receipt) => receipt.kind)).toEqual(["failed"]);
      expect(harness.receipts[0]?.text).toMatch(/^Couldn't save a memory: /);
    }
  });

  it("fuzz: hundreds of corrupted and truncated outputs store nothing and each records a failure", async () => {
    const corruptions: string[] = [];
    for (let cut = 0; cut < VALID.length; cut += 1) corruptions.push(VALID.slice(0, cut));
    // A longer, two-memory answer truncated every 3 characters (a cut-off stream).
    const two = JSON.stringify({
      memories: [
        JSON.parse(VALID).memories[0],
        {
          kind: "fact",
          text: "The user likes notes",
          evidence: "inferred",
          importance: "low",
          sourceQuote: "no peanuts",
        },
      ],
    });
    for (let cut = 0; cut < two.length; cut += 3) corruptions.push(two.slice(0, cut));
    const mutations: ((text: string) => string)[] = [
      (t) => t.replace('"constraint"', '"wish"'),
      (t) => t.replace('"user-stated"', '"user-confirmed"'),
      (t) => t.replace('"critical"', "0.9"),
      (t) => t.replace('"memories"', '"memory"'),
      (t) => t.replace("[", "{"),
      (t) => t.replace(/}]}$/, "}]"),
      (t) => t.replace('"text":"The user is allergic to peanuts"', '"text":""'),
      (t) => t.replace('"sourceQuote":"I\'m allergic to peanuts"', '"sourceQuote":null'),
      (t) => `Sure! Here is the JSON: ${t}`,
      (t) => t.replaceAll('"', "'"),
      (t) => t.replace(/:/g, "="),
      (t) => `[${t}]`,
      (t) => t.replace('"importance":"critical"', '"importance":"critical","score":1'),
      (t) => t.replace("}]}", ',"validFrom":"last tuesday"}]}'),
    ];
    for (const mutate of mutations) corruptions.push(mutate(VALID));
    for (let seed = 0; seed < 100; seed += 1) {
      // Deterministic garbage: a structural character deleted at a pseudo-random position.
      const structural = [...VALID.matchAll(/[{}[\]:,]/g)].map((match) => match.index ?? 0);
      const position = structural[(seed * 7919) % structural.length] ?? 0;
      corruptions.push(VALID.slice(0, position) + VALID.slice(position + 1));
    }
    expect(corruptions.length).toBeGreaterThan(300);

    let index = 0;
    const model = new ScriptedModel(() => ({ ok: true, text: corruptions[index] ?? "" }));
    const harness = makeHarness({ model });
    for (index = 0; index < corruptions.length; index += 1) {
      enqueue(harness.service);
      const summary = await harness.service.runPendingExtractions();
      expect(summary.failed, `corruption #${index}: ${corruptions[index]}`).toBe(1);
    }
    expect(memoryRows(harness)).toBe(0);
    expect(harness.service.jobs.countFailures()).toBe(corruptions.length);
    expect(harness.service.stats(null).extraction.jobs.failed).toBe(corruptions.length);
    expect(harness.receipts.every((receipt) => receipt.kind === "failed")).toBe(true);
  });

  it("queues while the provider is down, then runs after it recovers", async () => {
    let up = false;
    const model = new ScriptedModel(
      (): MemoryModelResult =>
        up ? { ok: true, text: VALID } : { ok: false, retryable: true, cause: "503 from provider" },
    );
    const harness = makeHarness({ model });
    const job = enqueue(harness.service);
    const first = await harness.service.runPendingExtractions();
    expect(first.deferred).toBe(1);
    const queued = harness.service.jobs.get(job.id);
    expect(queued).toMatchObject({ status: "queued", attempts: 1, lastError: "503 from provider" });
    expect(Date.parse(queued.nextAttemptAt) - harness.clock.now().getTime()).toBe(BACKOFF_BASE_MS);
    expect(harness.service.stats(null).extraction.queue).toEqual([
      { id: job.id, attempts: 1, nextAttemptAt: queued.nextAttemptAt, lastError: "503 from provider" },
    ]);
    // Not due yet: nothing is attempted.
    up = true;
    expect((await harness.service.runPendingExtractions()).examined).toBe(0);
    harness.clock.advanceMs(BACKOFF_BASE_MS);
    const second = await harness.service.runPendingExtractions();
    expect(second).toMatchObject({ done: 1, stored: 1 });
    expect(memoryRows(harness)).toBe(1);
  });

  it("gives up visibly after the maximum number of retryable failures", async () => {
    const model = new ScriptedModel(() => ({ ok: false, retryable: true, cause: "timeout" }));
    const harness = makeHarness({ model });
    const job = enqueue(harness.service);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      await harness.service.runPendingExtractions();
      harness.clock.advanceDays(1);
    }
    expect(harness.service.jobs.get(job.id).status).toBe("failed");
    expect(harness.service.jobs.recentFailures(1)[0]?.reason).toMatch(
      /gave up after 8 attempts; last cause: timeout/,
    );
    expect(harness.receipts.at(-1)?.kind).toBe("failed");
  });

  it("keeps jobs queued when the budget says no, without calling the model", async () => {
    let budget = false;
    const model = new ScriptedModel(() => ({ ok: true, text: VALID }));
    const harness = makeHarness({ model, canSpend: () => budget });
    const job = enqueue(harness.service);
    const summary = await harness.service.runPendingExtractions();
    expect(summary).toMatchObject({ deferred: 1, examined: 0 });
    expect(summary.stoppedBecause).toMatch(/budget/);
    expect(model.requests).toHaveLength(0);
    expect(harness.service.jobs.get(job.id)).toMatchObject({ status: "queued", attempts: 0 });
    expect(harness.service.stats(null).extraction.queue[0]?.lastError).toMatch(/budget/);
    budget = true;
    harness.clock.advanceDays(1);
    expect((await harness.service.runPendingExtractions()).done).toBe(1);
  });

  it("keeps jobs queued when no model is configured", async () => {
    const harness = makeHarness();
    enqueue(harness.service);
    const summary = await harness.service.runPendingExtractions();
    expect(summary.stoppedBecause).toMatch(/no model/);
    expect(harness.service.stats(null).extraction.jobs.queued).toBe(1);
  });

  it("fails a job the provider refuses for good, recording the cause", async () => {
    const model = new ScriptedModel(() => ({ ok: false, retryable: false, cause: "401 invalid API key" }));
    const harness = makeHarness({ model });
    enqueue(harness.service);
    expect((await harness.service.runPendingExtractions()).failed).toBe(1);
    expect(harness.service.jobs.recentFailures(1)[0]).toMatchObject({
      stage: "provider",
      reason: expect.stringMatching(/401/),
    });
  });

  it("an empty list is a valid answer: nothing stored, no failure", async () => {
    const model = new ScriptedModel(() => ({ ok: true, text: '{"memories":[]}' }));
    const harness = makeHarness({ model });
    enqueue(harness.service);
    expect(await harness.service.runPendingExtractions()).toMatchObject({ done: 1, stored: 0, failed: 0 });
    expect(harness.service.jobs.countFailures()).toBe(0);
  });

  it("requeues a job left running by a crashed process", async () => {
    const model = new ScriptedModel(() => ({ ok: true, text: VALID }));
    const harness = makeHarness({ model });
    const job = enqueue(harness.service);
    harness.service.jobs.claim(job.id, harness.clock.now().toISOString());
    expect((await harness.service.runPendingExtractions()).done).toBe(1);
  });

  it("refuses an empty excerpt at enqueue time", () => {
    const harness = makeHarness();
    expect(() => enqueue(harness.service, "   ")).toThrow(/nothing to extract/);
  });

  it("an aborted run leaves the job queued", async () => {
    const controller = new AbortController();
    const model = new ScriptedModel(() => {
      controller.abort();
      throw new Error("aborted by the user");
    });
    const harness = makeHarness({ model });
    const job = enqueue(harness.service);
    const summary = await harness.service.runPendingExtractions(controller.signal);
    expect(summary.stoppedBecause).toBe("aborted");
    expect(harness.service.jobs.get(job.id)).toMatchObject({
      status: "queued",
      lastError: "aborted by the user",
    });
    expect(memoryRows(harness)).toBe(0);
  });

  it("a call cut short by Mercury stopping is not a provider refusal: the job waits, uncounted, however often it happens", async () => {
    // The adapter reports an abort as a non-retryable failure; before session 8 the job failed for good.
    let controller = new AbortController();
    let interrupt = true;
    const model = new ScriptedModel((): MemoryModelResult => {
      if (!interrupt) return { ok: true, text: VALID };
      controller.abort();
      return { ok: false, retryable: false, cause: "aborted" };
    });
    const harness = makeHarness({ model });
    const job = enqueue(harness.service);
    for (let run = 0; run < MAX_ATTEMPTS + 1; run++) {
      controller = new AbortController();
      const summary = await harness.service.runPendingExtractions(controller.signal);
      expect(summary).toMatchObject({ failed: 0, deferred: 1, stoppedBecause: "aborted" });
      expect(harness.service.jobs.get(job.id)).toMatchObject({ status: "queued", attempts: 0 });
    }
    expect(harness.service.jobs.get(job.id)?.lastError).toMatch(/interrupted/);
    // The next, uninterrupted run extracts it at once: no backoff was added.
    interrupt = false;
    expect((await harness.service.runPendingExtractions()).done).toBe(1);
    expect(memoryRows(harness)).toBe(1);
  });

  it("a model adapter that throws does not lose the job", async () => {
    const model = new ScriptedModel(() => {
      throw new TypeError("adapter bug");
    });
    const logs: string[] = [];
    const harness = makeHarness({ model, log: (_level, message) => logs.push(message) });
    const job = enqueue(harness.service);
    expect((await harness.service.runPendingExtractions()).deferred).toBe(1);
    expect(harness.service.jobs.get(job.id)).toMatchObject({ status: "queued", lastError: "adapter bug" });
    expect(logs.some((message) => message.includes("adapter bug"))).toBe(true);
  });

  it("extracted claims are consolidated: a repeat confirms instead of duplicating", async () => {
    const model = new ScriptedModel(() => ({ ok: true, text: VALID }));
    const harness = makeHarness({ model });
    enqueue(harness.service);
    enqueue(harness.service);
    expect((await harness.service.runPendingExtractions()).done).toBe(2);
    const memories = harness.service.list({ userKey: "owner" });
    expect(memories).toHaveLength(1);
    expect(memories[0]).toMatchObject({ confirmations: 1, evidence: "user-confirmed" });
  });

  it("a store failure mid-job fails the job visibly instead of retrying into double confirmations", async () => {
    const two = JSON.stringify({
      memories: [
        JSON.parse(VALID).memories[0],
        {
          kind: "fact",
          text: "The user wants no peanuts",
          evidence: "inferred",
          importance: "low",
          sourceQuote: "no peanuts",
        },
      ],
    });
    const harness = makeHarness();
    const job = enqueue(harness.service);
    let calls = 0;
    const summary = await runPendingExtractions({
      jobs: harness.service.jobs,
      clock: harness.clock,
      model: new ScriptedModel(() => ({ ok: true, text: two })),
      canSpend: () => true,
      recoverInterrupted: false,
      emit: (receipt) => harness.receipts.push(receipt),
      store: async (candidate) => {
        calls++;
        if (calls === 2) throw new Error("disk I/O error");
        return harness.service.remember({ ...candidate, quote: candidate.provenance.quote });
      },
    });
    expect(summary).toMatchObject({ failed: 1, stored: 1, done: 0 });
    expect(harness.service.jobs.get(job.id).status).toBe("failed");
    expect(harness.service.jobs.recentFailures(1)[0]?.reason).toBe(
      "storing failed after 1 of 2 memories: disk I/O error",
    );
    expect(harness.receipts.at(-1)?.text).toBe(
      "Couldn't save a memory: storing failed after 1 of 2 memories: disk I/O error",
    );
  });

  it("two concurrent runs never extract the same job twice", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = new ScriptedModel(() => ({ ok: true, text: VALID }));
    const slow = {
      requests: model.requests,
      async complete(request: { system: string; prompt: string; signal?: AbortSignal }) {
        await gate;
        return model.complete(request);
      },
    };
    const harness = makeHarness({ model: slow });
    enqueue(harness.service);
    enqueue(harness.service);
    const first = harness.service.runPendingExtractions();
    const second = harness.service.runPendingExtractions();
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(a.done + b.done).toBe(2);
    expect(model.requests).toHaveLength(2);
    expect(harness.service.list({ userKey: "owner" })[0]?.confirmations).toBe(1);
  });
});
