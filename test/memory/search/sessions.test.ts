import { describe, expect, it } from "vitest";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import { boostBySession, SESSION_WEIGHT } from "../../../src/memory/search/sessions.js";
import { openMemoryDatabase } from "../../../src/storage/database.js";

describe("boostBySession", () => {
  const sessions = new Map([
    [1, "a"],
    [2, "b"],
    [3, "b"],
    [4, undefined],
  ]);
  const sessionOf = (documentId: number) => sessions.get(documentId);

  it("adds the weight times the best other candidate of the same session, and reorders", () => {
    const results = [
      { documentId: 1, score: 10 },
      { documentId: 2, score: 9.5 },
      { documentId: 3, score: 8 },
      { documentId: 4, score: 7 },
    ];
    const boosted = boostBySession(results, sessionOf, 0.15);
    // Session b holds two good candidates, session a one: 2 and 3 gain, 1 and 4 do not.
    expect(boosted).toEqual([
      { documentId: 2, score: 9.5 + 0.15 * 8 },
      { documentId: 1, score: 10 },
      { documentId: 3, score: 8 + 0.15 * 9.5 },
      { documentId: 4, score: 7 },
    ]);
  });

  it("leaves the list as it is with weight 0 or a single candidate", () => {
    const results = [
      { documentId: 3, score: 1 },
      { documentId: 2, score: 0.5 },
    ];
    expect(boostBySession(results, sessionOf, 0)).toEqual(results);
    expect(boostBySession(results.slice(0, 1), sessionOf, SESSION_WEIGHT)).toEqual(results.slice(0, 1));
  });
});

describe("SearchIndex with session keys", () => {
  it("ranks a turn whose session also talks about the question above an equal stray match", async () => {
    const database = openMemoryDatabase();
    try {
      const index = new SearchIndex(database);
      const turn = (id: number, session: string, text: string) => ({
        namespace: "episode" as const,
        id,
        scope: "owner",
        session,
        text,
      });
      index.upsertMany([
        // Two turns that match "pottery" equally well, in different sessions.
        turn(1, "s1", "The pottery fair was crowded"),
        turn(2, "s2", "The pottery fair was crowded"),
        // Only session s2 goes on about the class.
        turn(3, "s2", "My pottery class teacher showed us the wheel"),
        turn(4, "s1", "We talked about the weather"),
        turn(5, "s3", "Dinner was late"),
      ]);
      const search = async (sessionWeight: number) =>
        (
          await new SearchIndex(database, { sessionWeight }).search("pottery fair", {
            namespace: "episode",
            scopes: ["owner"],
          })
        ).map((hit) => hit.id);
      // Without session evidence the tie keeps insertion order; with it, s2's turn comes first.
      expect((await search(0)).slice(0, 2)).toEqual([1, 2]);
      expect((await search(SESSION_WEIGHT)).slice(0, 2)).toEqual([2, 1]);
    } finally {
      database.close();
    }
  });
});
