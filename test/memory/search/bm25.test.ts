import { describe, expect, it } from "vitest";
import {
  documentLength,
  documentTerms,
  isFieldTerm,
  SPEAKER_FIELD,
  speakerTermsOf,
} from "../../../src/memory/search/bm25.js";
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
});
