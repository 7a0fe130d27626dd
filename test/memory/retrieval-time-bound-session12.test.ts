import { describe, expect, it } from "vitest";
import { SearchIndex, type SearchIndexOptions } from "../../src/memory/search/search-index.js";
import { isTimeTerm, splitTimeTerms, type TimeBound } from "../../src/memory/search/time-terms.js";
import type { IndexedDocument } from "../../src/memory/search/types.js";
import { analyze } from "../../src/memory/text/analyze.js";
import { openMemoryDatabase } from "../../src/storage/database.js";

describe("time terms of a query", () => {
  it("are the words timeTerms() indexes: months, weekdays, days of the month, years", () => {
    const terms = analyze("what did Ann say on Saturday 14 March 2023 about the 300 garden plants");
    expect(terms.filter(isTimeTerm)).toEqual(analyze("Saturday 14 March 2023"));
    const { time, topic } = splitTimeTerms(new Map(terms.map((term) => [term, 1])));
    expect([...time.keys()]).toEqual(analyze("Saturday 14 March 2023"));
    expect([...topic.keys()]).toContain("garden");
    expect([...topic.keys()]).toContain("300");
  });
});

/** Ann's one turn about the garden (in April) and turns of March about other things. */
function corpus(): IndexedDocument[] {
  const turn = (id: number, occurredAt: string, text: string, speaker = "Ann"): IndexedDocument => ({
    namespace: "episode",
    id,
    scope: "owner",
    speaker,
    text,
    occurredAt,
  });
  return [
    turn(1, "2023-04-18T10:00:00Z", "I finally dug the new garden bed and planted the tomatoes"),
    turn(2, "2023-03-07T10:00:00Z", "The train was late again this morning"),
    turn(3, "2023-03-14T10:00:00Z", "We watched a film about sharks", "Bob"),
    turn(4, "2022-06-01T10:00:00Z", "The garden needs rain badly"),
    turn(5, "2022-07-01T10:00:00Z", "Our garden party got rained out", "Bob"),
    turn(6, "2022-08-01T10:00:00Z", "Neighbours admired the garden gate"),
    turn(7, "2022-05-02T10:00:00Z", "The bakery on the corner closed", "Bob"),
    turn(8, "2022-05-09T10:00:00Z", "Caroline lent me her bicycle", "Bob"),
    turn(9, "2022-09-09T10:00:00Z", "I bought new running shoes"),
    turn(10, "2022-10-10T10:00:00Z", "Work was busy all week", "Bob"),
    turn(11, "2023-04-20T10:00:00Z", "My cousin called about the wedding", "Bob"),
    turn(12, "2022-11-11T10:00:00Z", "Dinner was late again"),
  ];
}

async function ranked(query: string, options: SearchIndexOptions): Promise<number[]> {
  const database = openMemoryDatabase();
  try {
    const index = new SearchIndex(database, options);
    index.upsertMany(corpus());
    const hits = await index.search(query, { namespace: "episode", scopes: ["owner"] });
    return hits.map((hit) => hit.id);
  } finally {
    database.close();
  }
}

describe("SearchIndex time bound (session 12)", () => {
  it("a misremembered month does not bury the one turn about the topic", async () => {
    const query = "What did Ann say in March 2023 about the garden?";
    const order = async (timeBound: TimeBound) => ranked(query, { timeBound });
    // Without the bound a March 2023 turn outscores the April garden turn on two time words.
    expect((await order("off"))[0]).not.toBe(1);
    expect((await order("cap"))[0]).toBe(1);
    expect((await order("tier"))[0]).toBe(1);
    // The default is the cap.
    expect((await ranked(query, {}))[0]).toBe(1);
  });

  it("a question of time words only is ranked by them as before", async () => {
    const order = await ranked("What happened in May 2022?", {});
    expect(order.slice(0, 2).sort()).toEqual([7, 8]);
  });
});

describe("speaker names as words (SearchIndexOptions.speakerWords, off by default)", () => {
  it("lets a question whose only known word is a speaker's name find that speaker's turns", async () => {
    // "Bob" is in no turn's text: only the speaker field names him.
    expect(await ranked("Bob", {})).toEqual([]);
    const order = await ranked("Bob", { speakerWords: true });
    expect(new Set(order)).toEqual(new Set([3, 5, 7, 8, 10, 11]));
  });
});
