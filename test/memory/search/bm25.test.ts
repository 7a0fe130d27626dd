import { describe, expect, it } from "vitest";
import {
  documentLength,
  documentTerms,
  isFieldTerm,
  kthScore,
  SPEAKER_FIELD,
  speakerTermsOf,
} from "../../../src/memory/search/bm25.js";
import { analyze } from "../../../src/memory/text/analyze.js";

describe("kthScore", () => {
  it("equals the k-th largest by sorting, with or without a reused longer scratch", () => {
    const scores = new Float64Array(200);
    let seed = 7;
    for (let i = 0; i < scores.length; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      scores[i] = (seed % 1000) / 10;
    }
    const scratch = new Float64Array(500).fill(999);
    for (const size of [1, 5, 37, 200]) {
      const ids = Array.from({ length: size }, (_, i) => (i * 13) % 200);
      const sorted = ids.map((id) => scores[id] as number).sort((a, b) => b - a);
      for (const k of [1, Math.ceil(size / 2), size]) {
        expect(kthScore(scores, ids, k)).toBe(sorted[k - 1]);
        expect(kthScore(scores, ids, k, scratch)).toBe(sorted[k - 1]);
      }
    }
  });

  it("refuses a scratch shorter than the ids", () => {
    expect(() => kthScore(new Float64Array(3), [0, 1, 2], 1, new Float64Array(2))).toThrow(/scratch/);
  });
});

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
});
