import { describe, expect, it } from "vitest";
import { KNOWN_SEGMENTS, segmentCjk } from "../../../src/memory/text/analyze.js";

/** What segmentCjk gave before the table and the one-character shortcut: the live segmenter always. */
function segmentedLive(run: string, locale = "zh"): string[] {
  const terms: string[] = [];
  for (const part of new Intl.Segmenter(locale, { granularity: "word" }).segment(run)) {
    if (part.isWordLike) terms.push(part.segment);
  }
  const chars = Array.from(run);
  if (chars.length === 1) return terms.length > 0 ? terms : chars;
  for (let index = 0; index + 1 < chars.length; index++) {
    const bigram = `${chars[index]}${chars[index + 1]}`;
    if (!terms.includes(bigram)) terms.push(bigram);
  }
  return terms;
}

describe("CJK segmentation without building the segmenter", () => {
  it("keeps a table that is exactly what the Chinese segmenter gives", () => {
    for (const [word, parts] of KNOWN_SEGMENTS) {
      const live = [...new Intl.Segmenter("zh", { granularity: "word" }).segment(word)]
        .filter((part) => part.isWordLike)
        .map((part) => part.segment);
      expect(live, word).toEqual(parts);
      expect(segmentCjk(word), word).toEqual(segmentedLive(word));
    }
  });

  it("gives one character as itself, as the segmenter did (Han, kana, Hangul, the long-vowel mark)", () => {
    for (const [char, locale] of [
      ["住", "zh"],
      ["搬", "zh"],
      ["的", "zh"],
      ["ア", "ja"],
      ["あ", "ja"],
      ["가", "ko"],
      ["ー", "zh"],
      ["𠀀", "zh"],
    ] as const) {
      expect(segmentCjk(char), char).toEqual(segmentedLive(char, locale));
      expect(segmentCjk(char)).toEqual([char]);
    }
  });

  it("still segments longer runs with the segmenter", () => {
    for (const run of ["我住在上海", "工作很忙", "最喜欢的食物"])
      expect(segmentCjk(run), run).toEqual(segmentedLive(run));
    expect(segmentCjk("東京に住んでいます")).toEqual(segmentedLive("東京に住んでいます", "ja"));
  });
});
