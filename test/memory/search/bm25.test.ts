import { describe, expect, it } from "vitest";
import {
  CONTEXT_CAP,
  CONTEXT_WEIGHT,
  documentLength,
  documentTerms,
  isFieldTerm,
  SESSION_FIELD,
  SPEAKER_FIELD,
  speakerTermsOf,
} from "../../../src/memory/search/bm25.js";
import { encodeTerms, StoredTermWeights } from "../../../src/memory/search/stored-terms.js";
import { analyze } from "../../../src/memory/text/analyze.js";

describe("documentTerms", () => {
  it("adds the speaker as field terms that no analyzed word can equal, outside the BM25 length", () => {
    const withSpeaker = documentTerms({
      namespace: "episode",
      id: 1,
      scope: "owner",
      text: "Ann likes pottery",
      speaker: "Ann Lee",
    });
    const without = documentTerms({ namespace: "episode", id: 1, scope: "owner", text: "Ann likes pottery" });
    expect(speakerTermsOf(withSpeaker)).toEqual(analyze("Ann Lee"));
    expect(speakerTermsOf(without)).toEqual([]);
    expect(documentLength(withSpeaker)).toBe(documentLength(without));
    for (const term of withSpeaker.keys()) {
      if (isFieldTerm(term)) expect(term.startsWith(SPEAKER_FIELD)).toBe(true);
    }
    for (const word of analyze(`${SPEAKER_FIELD}ann speaker:ann \u0001 ann`))
      expect(isFieldTerm(word)).toBe(false);
  });

  it("keeps the session key as a field term, outside the BM25 length and the query's reach", () => {
    const base = { namespace: "episode" as const, id: 1, scope: "owner", text: "Ann likes pottery" };
    const withSession = documentTerms({ ...base, session: "chat-7" });
    // Read back from both stored forms: the compact string (searched, not parsed) and old JSON rows.
    const compact = new StoredTermWeights(encodeTerms(withSession));
    const json = new StoredTermWeights(JSON.stringify(Object.fromEntries(withSession)));
    expect(compact.fieldValue(SESSION_FIELD)).toBe("chat-7");
    expect(json.fieldValue(SESSION_FIELD)).toBe("chat-7");
    expect(new StoredTermWeights(encodeTerms(documentTerms(base))).fieldValue(SESSION_FIELD)).toBeUndefined();
    expect(withSession.get(`${SESSION_FIELD}chat-7`)).toBe(1);
    expect(documentLength(withSession)).toBe(documentLength(documentTerms(base)));
  });

  it("scales a context longer than CONTEXT_CAP terms down to that many terms' worth, a short one not", () => {
    const base = { namespace: "episode" as const, id: 1, scope: "owner", text: "I moved to Lisbon" };
    const own = documentLength(documentTerms(base, CONTEXT_WEIGHT, false));
    const short = documentTerms({ ...base, context: "pottery class on Tuesday" }, CONTEXT_WEIGHT, false);
    expect(short.get("potteri")).toBeCloseTo(CONTEXT_WEIGHT);
    expect(documentLength(short) - own).toBeCloseTo(
      CONTEXT_WEIGHT * analyze("pottery class on Tuesday").length,
    );
    // A neighbouring answer of 400 terms: its words still match, but all of it weighs CONTEXT_CAP terms.
    const long = `pottery ${Array.from({ length: 399 }, (_, index) => `word${index}`).join(" ")}`;
    const capped = documentTerms({ ...base, context: long }, CONTEXT_WEIGHT, false);
    expect(analyze(long).length).toBe(400);
    expect(capped.get("potteri")).toBeCloseTo((CONTEXT_WEIGHT * CONTEXT_CAP) / 400);
    expect(documentLength(capped) - own).toBeCloseTo(CONTEXT_WEIGHT * CONTEXT_CAP);
    const uncapped = documentTerms(
      { ...base, context: long },
      CONTEXT_WEIGHT,
      false,
      Number.POSITIVE_INFINITY,
    );
    expect(documentLength(uncapped) - own).toBeCloseTo(CONTEXT_WEIGHT * 400);
  });
  it("weighs each context part by its own weight and caps the context's weighted size", () => {
    const base = { namespace: "episode" as const, id: 1, scope: "owner", text: "I moved to Lisbon" };
    const own = documentLength(documentTerms(base, CONTEXT_WEIGHT, false));
    const parts = [
      { text: "pottery class", weight: 1 },
      { text: "guitar lesson", weight: 0.5 },
      { text: "ignored entirely", weight: 0 },
    ];
    const weighted = documentTerms({ ...base, context: parts }, CONTEXT_WEIGHT, false);
    expect(weighted.get("potteri")).toBeCloseTo(CONTEXT_WEIGHT);
    expect(weighted.get("guitar")).toBeCloseTo(CONTEXT_WEIGHT * 0.5);
    expect(weighted.has("ignor")).toBe(false);
    expect(documentLength(weighted) - own).toBeCloseTo(CONTEXT_WEIGHT * (2 + 0.5 * 2));
    // A far part's long answer counts half towards the cap: 2 + 0.5 x 100 = 52 weighted terms.
    const far = `guitar ${Array.from({ length: 99 }, (_, index) => `word${index}`).join(" ")}`;
    const capped = documentTerms(
      { ...base, context: [parts[0] as (typeof parts)[0], { text: far, weight: 0.5 }] },
      CONTEXT_WEIGHT,
      false,
    );
    const scale = CONTEXT_CAP / 52;
    expect(capped.get("potteri")).toBeCloseTo(CONTEXT_WEIGHT * scale);
    expect(capped.get("guitar")).toBeCloseTo(CONTEXT_WEIGHT * 0.5 * scale);
    expect(documentLength(capped) - own).toBeCloseTo(CONTEXT_WEIGHT * CONTEXT_CAP);
    // A plain string is one part of weight 1, as before.
    expect(documentTerms({ ...base, context: "pottery class" }, CONTEXT_WEIGHT, false)).toEqual(
      documentTerms({ ...base, context: [{ text: "pottery class", weight: 1 }] }, CONTEXT_WEIGHT, false),
    );
  });
});
