import { describe, expect, it } from "vitest";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import {
  boostBySession,
  NEIGHBOUR_MU,
  SESSION_WEIGHT,
  smoothByNeighbours,
  type TurnPosition,
} from "../../../src/memory/search/sessions.js";
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

describe("smoothByNeighbours", () => {
  const positions = new Map<number, TurnPosition>([
    [1, { session: "a", order: 10, length: 10 }],
    [2, { session: "a", order: 11, length: 10 }],
    [3, { session: "a", order: 12, length: 90 }],
    [4, { session: "b", order: 13, length: 10 }],
    [5, { session: "a", order: 14, length: 10 }],
  ]);
  const positionOf = (documentId: number) => positions.get(documentId);

  it("moves a short turn mu / (length + mu) of the way up to its best adjacent candidate, never past it", () => {
    const results = [
      { documentId: 1, score: 10 },
      { documentId: 4, score: 5 },
      { documentId: 2, score: 2 },
    ];
    const smoothed = smoothByNeighbours(results, positionOf, 10);
    // Turn 2 (length 10) is adjacent to turn 1: share 10 / 20 = 0.5, so 2 + 0.5 x (10 - 2) = 6.
    expect(smoothed).toEqual([
      { documentId: 1, score: 10 },
      { documentId: 2, score: 6 },
      { documentId: 4, score: 5 },
    ]);
    expect(smoothed.every((result) => result.score <= 10)).toBe(true);
  });

  it("lifts a long turn less, and never lowers a turn below its own score", () => {
    const results = [
      { documentId: 2, score: 10 },
      { documentId: 3, score: 1 },
      { documentId: 1, score: 1 },
    ];
    const smoothed = new Map(smoothByNeighbours(results, positionOf, 10).map((r) => [r.documentId, r.score]));
    // Turn 3 (length 90): share 0.1; turn 1 (length 10): share 0.5. Turn 2 keeps its score.
    expect(smoothed.get(3)).toBeCloseTo(1 + 0.1 * 9);
    expect(smoothed.get(1)).toBeCloseTo(1 + 0.5 * 9);
    expect(smoothed.get(2)).toBe(10);
  });

  it("gives nothing across sessions, across a gap, without a position, or with mu 0", () => {
    const results = [
      { documentId: 3, score: 10 },
      // Turn 4 is next to 3 by order but in another session; turn 5 is two turns away from 3.
      { documentId: 4, score: 1 },
      { documentId: 5, score: 1 },
      { documentId: 9, score: 0.5 },
    ];
    expect(smoothByNeighbours(results, positionOf, NEIGHBOUR_MU)).toEqual(results);
    const adjacent = [
      { documentId: 1, score: 10 },
      { documentId: 2, score: 1 },
    ];
    expect(smoothByNeighbours(adjacent, positionOf, 0)).toEqual(adjacent);
  });
});

describe("SearchIndex with neighbour smoothing", () => {
  it("ranks a short reply to the turn that names the topic above an equal stray match", async () => {
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
        turn(1, "s1", "We adopted a puppy from the shelter, her name is Coco"),
        // The answer: a short reply that says little by itself.
        turn(2, "s1", "She is slowly learning the basic commands and sleeps a lot"),
        turn(3, "s1", "The weather was nice today"),
        // A stray short turn that shares the same word, in another session.
        turn(4, "s2", "Editor commands confuse me"),
        turn(5, "s2", "I went to the gym after work"),
      ]);
      const rank = async (neighbourMu: number) => {
        const hits = await new SearchIndex(database, { neighbourMu }).search("puppy commands", {
          namespace: "episode",
          scopes: ["owner"],
        });
        const ids = hits.map((hit) => hit.id);
        return { reply: ids.indexOf(2), stray: ids.indexOf(4) };
      };
      const without = await rank(0);
      const withSmoothing = await rank(NEIGHBOUR_MU);
      // By its own words the longer reply ranks below the stray turn; next to "puppy" it ranks above.
      expect(without.reply).toBeGreaterThan(without.stray);
      expect(withSmoothing.reply).toBeLessThan(withSmoothing.stray);
    } finally {
      database.close();
    }
  });
});
