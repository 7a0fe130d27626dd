import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PRECISION, precisionBonus } from "../../../src/memory/search/precision.js";
import { addressedRole } from "../../../src/memory/search/query.js";
import { SearchIndex } from "../../../src/memory/search/search-index.js";
import type { IndexedDocument, SpeakerRole } from "../../../src/memory/search/types.js";
import { analyze } from "../../../src/memory/text/analyze.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../../src/storage/database.js";

describe("addressedRole", () => {
  it("reads the user from the first person and the assistant from the second", () => {
    expect(addressedRole("What did I buy for my sister?")).toBe("user");
    expect(addressedRole("I'm planning a trip")).toBe("user");
    expect(addressedRole("Which wine did you recommend?")).toBe("assistant");
  });

  it("names nobody when the question has both persons or neither", () => {
    expect(addressedRole("Can you remind me what I said about the lake?")).toBeUndefined();
    expect(addressedRole("What did Ann say about pottery?")).toBeUndefined();
    expect(addressedRole("")).toBeUndefined();
  });
});

describe("role bonus", () => {
  const query = analyze("Which camera did I buy?");
  const idf = (term: string) => term.length;
  const strongest = Math.max(...query.map(idf));
  const parameters = { ...DEFAULT_PRECISION, speaker: 0, role: 1 };
  const doc = (role?: SpeakerRole) => ({ terms: [], speaker: [], role });

  it("adds the query's strongest idf to a document of the role addressed, and nothing otherwise", () => {
    expect(precisionBonus(query, doc("user"), idf, parameters, "user")).toBeCloseTo(strongest);
    expect(precisionBonus(query, doc("assistant"), idf, parameters, "user")).toBe(0);
    expect(precisionBonus(query, doc(), idf, parameters, "user")).toBe(0);
    expect(precisionBonus(query, doc("user"), idf, parameters)).toBe(0);
    expect(precisionBonus(query, doc("user"), idf, { ...parameters, role: 0 }, "user")).toBe(0);
  });
});

describe("role-aware search", () => {
  let database: SqliteDatabase;
  beforeEach(() => {
    database = openMemoryDatabase();
  });
  afterEach(() => {
    database.close();
  });

  const turn = (id: number, text: string, role: SpeakerRole): IndexedDocument => ({
    namespace: "episode",
    id,
    scope: "owner",
    text,
    role,
  });
  const SCOPES = { namespace: "episode" as const, scopes: ["owner"] };

  it("puts the user's own turn first for a first-person question, the assistant's for a second-person one", async () => {
    const index = new SearchIndex(database);
    index.upsertMany([
      turn(1, "a good camera for hiking is the compact mirrorless one", "assistant"),
      turn(2, "a good camera for hiking is the compact mirrorless one", "user"),
      turn(3, "the weather was grey all week", "user"),
      turn(4, "here is a recipe for soup", "assistant"),
    ]);
    const mine = await index.search("Which camera for hiking did I choose?", SCOPES);
    expect(mine.slice(0, 2).map((hit) => hit.id)).toEqual([2, 1]);
    const yours = await index.search("Which camera for hiking did you suggest?", SCOPES);
    expect(yours.slice(0, 2).map((hit) => hit.id)).toEqual([1, 2]);
  });

  it("never finds a turn by its role alone", async () => {
    const index = new SearchIndex(database);
    index.upsertMany([turn(1, "pottery on Sunday", "assistant"), turn(2, "the weather is nice", "user")]);
    const hits = await index.search("What pottery did I do?", SCOPES);
    expect(hits.map((hit) => hit.id)).toEqual([1]);
  });
});
