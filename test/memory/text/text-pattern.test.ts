import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
// Imported for their module-level patterns: every `textPattern` registers itself when built.
import "../../../src/memory/consolidation/consolidate.js";
import "../../../src/memory/consolidation/guards.js";
import "../../../src/memory/consolidation/retired.js";
import "../../../src/memory/search/rank.js";
import "../../../src/memory/text/analyze.js";
import { mulberry32 } from "../../../src/memory/text/mulberry32.js";
import {
  KNOWN_PROPERTIES,
  registeredTextPatterns,
  TextPattern,
  textPattern,
  translateToAscii,
} from "../../../src/memory/text/text-pattern.js";

const ASCII = Array.from({ length: 128 }, (_, code) => String.fromCharCode(code));

function propertiesIn(source: string): string[] {
  return [...source.matchAll(/\\[pP]\{([^}]*)\}/g)].map((match) => match[1] ?? "");
}

/** ASCII statements from the statement-pair fixtures, plus seeded random ASCII text. */
function corpus(): string[] {
  const directory = join(import.meta.dirname, "..", "fixtures");
  const texts = new Set<string>();
  for (const file of readdirSync(directory).filter((name) => name.endsWith(".jsonl")))
    for (const line of readFileSync(join(directory, file), "utf8").split("\n")) {
      if (line.trim() === "") continue;
      const row: unknown = JSON.parse(line);
      if (typeof row !== "object" || row === null) continue;
      for (const value of Object.values(row))
        if (typeof value === "string" && /^[\0-\x7f]*$/.test(value)) texts.add(value);
    }
  const random = mulberry32(20261202);
  const pieces = [
    ..."abcxyzABCXYZ0123456789 .,;:!?'\"-_+#/()[]{}@$%&*<>=|~^`\\\t\n",
    "C++",
    "C#",
    "F#",
    ".NET",
    "node.js",
    "I'm",
    "don't",
    "Sarah's",
    "qu'il",
    "l'ami",
    " 5 km",
    "12kg",
    "3.5GHz",
    "$20",
    "100%",
    "iPhone 15",
    "I",
    "retired",
    "works as a nurse",
    "me mude a Madrid",
    "ahora",
    "Tom",
    "K",
    "s",
  ];
  for (let count = 0; count < 3000; count++) {
    let text = "";
    const length = 1 + (random() % 12);
    for (let piece = 0; piece < length; piece++) text += pieces[random() % pieces.length];
    texts.add(text);
  }
  return [...texts];
}

type Comparison = [actual: unknown, expected: unknown, how: "toBe" | "toEqual"];

/** The checks of one pattern on one text: the translated and registered pattern against the original. */
function comparisons(
  pattern: TextPattern,
  text: string,
  original: () => RegExp,
  ascii: () => RegExp,
): Comparison[] {
  const pairs: Comparison[] = [[ascii().test(text), original().test(text), "toBe"]];
  if (pattern.global) {
    const matches = (regexp: RegExp) =>
      [...text.matchAll(regexp)].map((match) => [match.index, [...match], match.groups]);
    pairs.push([matches(ascii()), matches(original()), "toEqual"]);
    pairs.push([text.match(pattern), text.match(original()), "toEqual"]);
    pairs.push([[...text.matchAll(pattern as unknown as RegExp)], [...text.matchAll(original())], "toEqual"]);
  } else {
    const first = (regexp: RegExp) => {
      const match = regexp.exec(text);
      return match === null ? null : [match.index, [...match], match.groups];
    };
    pairs.push([first(ascii()), first(original()), "toEqual"]);
    pattern.lastIndex = 0;
    pairs.push([pattern.exec(text), original().exec(text), "toEqual"]);
    pairs.push([pattern.test(text), original().test(text), "toBe"]);
  }
  pairs.push([text.replace(ascii(), "<$&|$1>"), text.replace(original(), "<$&|$1>"), "toBe"]);
  const replacer = (...args: unknown[]) => JSON.stringify(args);
  pairs.push([text.replace(pattern, replacer), text.replace(original(), replacer), "toBe"]);
  pairs.push([text.split(ascii()), text.split(original()), "toEqual"]);
  pairs.push([text.split(pattern), text.split(original()), "toEqual"]);
  pairs.push([text.search(pattern), text.search(original()), "toBe"]);
  return pairs;
}

describe("textPattern", () => {
  const patterns = registeredTextPatterns();

  it("registers the patterns of the memory text, search and consolidation modules", () => {
    expect(patterns.length).toBeGreaterThan(30);
    expect(patterns.every((pattern) => pattern instanceof TextPattern)).toBe(true);
  });

  it("translates every property it knows to exactly the ASCII characters it matches, with and without /i", () => {
    const used = new Set([
      ...KNOWN_PROPERTIES,
      ...patterns.flatMap((pattern) => propertiesIn(pattern.source)),
    ]);
    for (const property of used)
      for (const flags of ["u", "iu"])
        for (const propertyEscape of [String.raw`\p{${property}}`, String.raw`\P{${property}}`])
          for (const context of [
            `^${propertyEscape}$`,
            `^[${propertyEscape}]$`,
            `^[^${propertyEscape}]$`,
            `^[x${propertyEscape}]$`,
          ]) {
            const original = new RegExp(context, flags);
            const ascii = new RegExp(translateToAscii(context), flags);
            const differing = ASCII.filter((char) => original.test(char) !== ascii.test(char));
            expect({ context, flags, differing }).toEqual({ context, flags, differing: [] });
          }
  });

  it("refuses a property it has no translation for", () => {
    expect(() => textPattern(String.raw`\p{Sc}`, "u")).toThrow(/no ASCII translation/);
    expect(() => textPattern(String.raw`[\p{Script=Latin}]`, "u")).toThrow(/no ASCII translation/);
  });

  it("gives identical results to the original pattern on ASCII text", () => {
    const texts = corpus();
    expect(texts.length).toBeGreaterThan(3000);
    for (const pattern of patterns) {
      const original = () => new RegExp(pattern.source, pattern.flags);
      // Translated once per pattern: the translation is what is under test, not its cost.
      const asciiSource = translateToAscii(pattern.source);
      const ascii = () => new RegExp(asciiSource, pattern.flags);
      for (const text of texts) {
        // Every comparison runs for every text; `expect` (slow over ~100 000 texts and patterns)
        // runs only when a plain strict comparison differs, and then decides and reports with the label.
        const pairs = comparisons(pattern, text, original, ascii);
        if (pairs.every(([actual, expected]) => isDeepStrictEqual(actual, expected))) continue;
        const label = `${pattern} on ${JSON.stringify(text)}`;
        for (const [actual, expected, how] of pairs)
          if (how === "toBe") expect(actual, label).toBe(expected);
          else expect(actual, label).toEqual(expected);
      }
    }
  });

  it("runs the original pattern on text holding any non-ASCII character", () => {
    const letters = textPattern(String.raw`\p{L}+`, "gu");
    expect("café déjà".match(letters)).toEqual(["café", "déjà"]);
    expect("cafe deja".match(letters)).toEqual(["cafe", "deja"]);
    const han = textPattern(String.raw`\p{Script=Han}`, "u");
    expect(han.test("abc")).toBe(false);
    expect(han.test("我")).toBe(true);
  });

  it("keeps lastIndex across exec calls on a global pattern, as a RegExp does", () => {
    const words = textPattern(String.raw`\p{L}+`, "gu");
    expect(words.exec("one two")?.[0]).toBe("one");
    expect(words.lastIndex).toBe(3);
    expect(words.exec("one two")?.[0]).toBe("two");
    expect(words.exec("one two")).toBeNull();
    expect(words.lastIndex).toBe(0);
    expect(String(words)).toBe(String.raw`/\p{L}+/gu`);
  });
});
