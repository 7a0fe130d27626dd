import { describe, expect, it } from "vitest";
import { makeHarness, ScriptedModel } from "../store/harness.js";

function extracting(...memories: Record<string, string>[]) {
  return new ScriptedModel(() => ({ ok: true, text: JSON.stringify({ memories }) }));
}

const FACT = {
  kind: "fact",
  text: "The user lives in Lisbon",
  evidence: "user-stated",
  importance: "normal",
  sourceQuote: "I live in Lisbon now",
};
const EXCERPT = "User: I live in Lisbon now\nAssistant: Noted.";

describe("validFrom of an extracted fact", () => {
  it("defaults to when the user's source turn was said, not to when extraction ran", async () => {
    const { service, clock } = makeHarness({ model: extracting(FACT) });
    const turn = (messageId: number, role: "user" | "assistant", text: string, createdAt: string) =>
      service.recordEpisode({ userKey: "owner", sessionId: "s1", messageId, role, text, createdAt });
    turn(1, "user", "I live in Lisbon now", "2026-03-01T09:00:00.000Z");
    turn(2, "assistant", "Noted.", "2026-03-01T09:00:05.000Z");
    service.enqueueExtraction({
      userKey: "owner",
      sessionId: "s1",
      messageIds: [1, 2],
      transcriptExcerpt: EXCERPT,
    });
    clock.advanceDays(2);
    await service.runPendingExtractions();
    const [memory] = service.list({ userKey: "owner" });
    expect(memory?.text).toBe("The user lives in Lisbon");
    expect(memory?.validFrom).toBe("2026-03-01T09:00:00.000Z");
    expect(memory?.recordedAt).not.toBe(memory?.validFrom);
  });

  it("keeps a date the excerpt states, and falls back to the job's time when the turns are not archived", async () => {
    const stated = makeHarness({ model: extracting({ ...FACT, validFrom: "2025-06-01" }) });
    stated.service.enqueueExtraction({
      userKey: "owner",
      sessionId: "s1",
      messageIds: [7],
      transcriptExcerpt: EXCERPT,
    });
    await stated.service.runPendingExtractions();
    expect(stated.service.list({ userKey: "owner" })[0]?.validFrom).toBe("2025-06-01");

    const bare = makeHarness({ model: extracting(FACT) });
    const job = bare.service.enqueueExtraction({
      userKey: "owner",
      sessionId: "s1",
      messageIds: [7],
      transcriptExcerpt: EXCERPT,
    });
    bare.clock.advanceDays(1);
    await bare.service.runPendingExtractions();
    expect(bare.service.list({ userKey: "owner" })[0]?.validFrom).toBe(job.createdAt);
  });
});
