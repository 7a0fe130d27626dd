import { describe, expect, it } from "vitest";
import { JudgeQueue } from "../../src/memory/store/judge-queue.js";
import { makeHarness } from "./store/harness.js";

const claim = (text: string) =>
  ({ userKey: "owner", text, kind: "fact", importance: "normal", evidence: "user-stated" }) as const;

describe("forget and the judge queue", () => {
  it("a queued pair's recorded model error that quoted the forgotten fact loses its words; the pair stays queued", async () => {
    const { service, database } = makeHarness();
    const forgotten = (await service.remember(claim("My locker code word is zebraquartz"))).memory;
    const waiting = (await service.remember(claim("My gym bag is blue"))).memory;
    const queue = new JudgeQueue(database);
    // A model's invalid answer echoed the neighbour it was shown; the parse error quotes it.
    queue.enqueue(
      waiting.id,
      "owner",
      [forgotten.id],
      "not JSON (Unexpected token 'M', \"My locker code word is zebraquartz\" is not valid JSON)",
      "2026-01-01T12:00:00.000Z",
    );
    service.forget(forgotten.id, "owner");
    const pending = queue.pending(10);
    expect(pending.map((pair) => pair.memoryId)).toEqual([waiting.id]);
    expect(pending[0]?.lastError?.toLowerCase()).not.toContain("zebraquartz");
  });
});
