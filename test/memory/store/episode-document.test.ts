import { describe, expect, it } from "vitest";
import { FORGOTTEN, reindexEpisodes } from "../../../src/memory/store/redaction.js";
import { dumpAllTables, makeHarness } from "./harness.js";

/** Live turns are indexed as the retrieval bench's are: speaker, role, and the turns around them. */
describe("a recorded turn's search document", () => {
  function conversation() {
    const harness = makeHarness();
    const turn = (role: "user" | "assistant", text: string, minute: number) =>
      harness.service.recordEpisode({
        userKey: "owner",
        sessionId: "s1",
        role,
        text,
        createdAt: `2026-01-01T00:${String(minute).padStart(2, "0")}:00Z`,
      }).id;
    const ids = [
      turn("user", "I adopted a ferret named Pip", 0),
      turn("assistant", "Congratulations, a ferret is great company", 1),
      turn("user", "She is eleven weeks old", 2),
      turn("assistant", "Lovely, tell me more about Pip", 3),
    ];
    return { ...harness, ids };
  }
  const texts = async (service: ReturnType<typeof makeHarness>["service"], query: string) =>
    (await service.searchEpisodes({ userKey: "owner", query })).map((hit) => hit.episode.text);

  it("is found through a later turn of its session, so recording a turn re-indexes the ones before it", async () => {
    const { service } = conversation();
    // "weeks" is said only in the third turn: the first two find it as their following context.
    const found = await texts(service, "weeks");
    expect(found[0]).toBe("She is eleven weeks old");
    expect(found).toContain("I adopted a ferret named Pip");
    expect(found).toContain("Congratulations, a ferret is great company");
  });

  it("favours the user's turn for a first-person question and the assistant's for a second-person one", async () => {
    const { service } = conversation();
    expect((await texts(service, "Which ferret did I adopt?"))[0]).toBe("I adopted a ferret named Pip");
    expect((await texts(service, "What did you say about the ferret?"))[0]).toBe(
      "Congratulations, a ferret is great company",
    );
  });

  it("keeps no word of a scrubbed turn in its neighbours' context after a redaction re-indexes them", async () => {
    const { service, database, index, ids } = conversation();
    const scrubbed = ids[2] as number;
    database.prepare("UPDATE episodes SET text = ? WHERE id = ?").run(FORGOTTEN, scrubbed);
    reindexEpisodes(database, index, [scrubbed]);
    expect(await texts(service, "weeks")).toEqual([]);
    expect(await texts(service, "eleven")).toEqual([]);
    const dump = dumpAllTables(database);
    expect(dump).not.toMatch(/eleven|week/);
    // The other turns are still there, with what is left of their context.
    expect(await texts(service, "Pip")).toContain("I adopted a ferret named Pip");
  });
});
