import { describe, expect, it } from "vitest";
import {
  analyze,
  hasNegation,
  lexicalSimilarity,
  normalize,
  tokenize,
} from "../../../src/memory/text/analyze.js";

describe("normalize and tokenize", () => {
  it("folds case, width and curly quotes, and drops possessives", () => {
    expect(tokenize("What\u2019s CAROLINE\u2019s \u201cfavorite\u201d ＢＯＯＫ?")).toEqual([
      "what",
      "caroline",
      "favorite",
      "book",
    ]);
  });

  it("expands negated contractions to 'not' so negation survives", () => {
    expect(tokenize("I don't, won't, can't")).toEqual(["i", "do", "not", "will", "not", "can", "not"]);
    expect(normalize("isn\u2019t")).toBe("is not");
  });

  it("joins other apostrophes and strips accents from Latin letters only", () => {
    expect(tokenize("O'Neil café")).toEqual(["oneil", "cafe"]);
    expect(tokenize("서울")).toEqual(["서울"]);
  });

  it("splits a word mixing Latin and CJK scripts", () => {
    expect(tokenize("iphone用ケース")).toEqual(["iphone", "用ケース"]);
  });
});

describe("analyze", () => {
  it("stems English words and removes stopwords", () => {
    expect(analyze("She was running to the paintings")).toEqual(["run", "paint"]);
  });

  it("gives the same terms whatever the punctuation, case or quoting", () => {
    const expected = analyze("caroline adoption agency");
    for (const variant of [
      '"Caroline" adoption-agency!',
      "CAROLINE'S adoption agency?",
      "(caroline) «adoption» agency…",
    ]) {
      expect(analyze(variant)).toEqual(expected);
    }
  });

  it("segments Chinese, Japanese and Korean and adds bigrams", () => {
    const chinese = analyze("我喜欢在东京吃寿司");
    expect(chinese).toContain("东京");
    expect(chinese).toContain("寿司");
    expect(analyze("東京に住んでいます")).toContain("東京");
    expect(analyze("서울에서 살아요")).toContain("서울");
  });

  it("keeps numbers and drops one-letter Latin tokens", () => {
    expect(analyze("I moved in 2019 to a b c flat 42")).toEqual(["move", "2019", "flat", "42"]);
  });
});

describe("hasNegation", () => {
  it("detects negation words on whole tokens only", () => {
    expect(hasNegation(tokenize("I don't like coffee"))).toBe(true);
    expect(hasNegation(tokenize("I never drink coffee"))).toBe(true);
    expect(hasNegation(tokenize("no coffee for me"))).toBe(true);
    expect(hasNegation(tokenize("my notes about the knot"))).toBe(false);
    expect(hasNegation(tokenize("nothingness and nobel prizes"))).toBe(false);
  });
});

describe("lexicalSimilarity", () => {
  it("is 1 for the same stemmed content and 0 for disjoint content", () => {
    expect(lexicalSimilarity("I love hiking", "I loved hikes")).toBeCloseTo(1);
    expect(lexicalSimilarity("I love hiking", "The car is red")).toBe(0);
  });

  it("is between 0 and 1 for partial overlap and symmetric", () => {
    const ab = lexicalSimilarity("User lives in Berlin with a cat", "User lives in Lisbon");
    expect(ab).toBeGreaterThan(0.2);
    expect(ab).toBeLessThan(1);
    expect(lexicalSimilarity("User lives in Lisbon", "User lives in Berlin with a cat")).toBeCloseTo(ab);
  });

  it("is 0 when a text has no content words", () => {
    expect(lexicalSimilarity("the and of", "coffee")).toBe(0);
  });
});
