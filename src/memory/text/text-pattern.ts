/**
 * Regular expressions with Unicode property classes (`\p{L}`, `\p{Script=Han}`) and an ASCII fast path.
 *
 * Why: V8 builds every property class from ICU data (hundreds of ranges, canonicalized) each time such a
 * pattern is checked or compiled, and a short-lived `mercury memory add` process compiles dozens of them:
 * ~68 M of its ~360 M instructions beyond `node -e 0` (BENCHMARKS.md, 2026-12-02). Most text is ASCII, and
 * on ASCII text each property class matches a fixed set of ASCII characters. A `TextPattern` therefore
 * keeps two patterns, both compiled on first use: the original, for text holding any non-ASCII character,
 * and an ASCII translation (`\p{L}` → `[A-Za-z]`), for all-ASCII text. Both run the same source with the
 * same flags except for the property classes, so on ASCII text they give identical results
 * (test/memory/text/text-pattern.test.ts proves the classes equal on all 128 ASCII characters and
 * compares both patterns on a corpus).
 */

/** ASCII code-point ranges (inclusive) each known property matches; an unknown one is refused. */
const ASCII_RANGES: Readonly<Record<string, readonly (readonly [number, number])[]>> = {
  L: [
    [0x41, 0x5a],
    [0x61, 0x7a],
  ],
  Lu: [[0x41, 0x5a]],
  Ll: [[0x61, 0x7a]],
  N: [[0x30, 0x39]],
  Nd: [[0x30, 0x39]],
  // ! " # % & ' ( ) * , - . / : ; ? @ [ \ ] _ { }
  P: [
    [0x21, 0x23],
    [0x25, 0x2a],
    [0x2c, 0x2f],
    [0x3a, 0x3b],
    [0x3f, 0x40],
    [0x5b, 0x5d],
    [0x5f, 0x5f],
    [0x7b, 0x7b],
    [0x7d, 0x7d],
  ],
  M: [],
  Extended_Pictographic: [],
  "Script=Han": [],
  "Script=Hiragana": [],
  "Script=Katakana": [],
  "Script=Hangul": [],
};

/** The properties `translateToAscii` knows, for the equivalence test. */
export const KNOWN_PROPERTIES: readonly string[] = Object.keys(ASCII_RANGES);

function hex(codePoint: number): string {
  return `\\x${codePoint.toString(16).padStart(2, "0")}`;
}

function asciiRanges(property: string, negated: boolean): readonly (readonly [number, number])[] {
  const ranges = ASCII_RANGES[property];
  if (ranges === undefined)
    throw new Error(`textPattern: no ASCII translation for \\p{${property}}; add it to ASCII_RANGES`);
  if (!negated) return ranges;
  const complement: [number, number][] = [];
  let next = 0;
  for (const [first, last] of ranges) {
    if (first > next) complement.push([next, first - 1]);
    next = last + 1;
  }
  if (next <= 0x7f) complement.push([next, 0x7f]);
  return complement;
}

function classBody(ranges: readonly (readonly [number, number])[]): string {
  return ranges.map(([first, last]) => (first === last ? hex(first) : `${hex(first)}-${hex(last)}`)).join("");
}

/**
 * The source with every `\p{…}` / `\P{…}` replaced by the ASCII characters it matches: inside a class
 * by those ranges (nothing when there are none), outside as a class of them (`[^\s\S]` when empty).
 * Only for input that is all ASCII. Throws on a property it does not know.
 */
export function translateToAscii(source: string): string {
  let result = "";
  let inClass = false;
  for (let index = 0; index < source.length; index++) {
    const char = source[index];
    if (char === "\\") {
      const escaped = source[index + 1];
      if ((escaped === "p" || escaped === "P") && source[index + 2] === "{") {
        const end = source.indexOf("}", index + 3);
        if (end < 0) throw new Error(`textPattern: unterminated property escape in ${source}`);
        const body = classBody(asciiRanges(source.slice(index + 3, end), escaped === "P"));
        result += inClass ? body : body === "" ? String.raw`[^\s\S]` : `[${body}]`;
        index = end;
        continue;
      }
      result += source.slice(index, index + 2);
      index++;
      continue;
    }
    if (char === "[" && !inClass) inClass = true;
    else if (char === "]" && inClass) inClass = false;
    result += char;
  }
  return result;
}

function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

const registered: TextPattern[] = [];

/** Every pattern built so far, for the equivalence test. */
export function registeredTextPatterns(): readonly TextPattern[] {
  return registered;
}

/**
 * An object that matches like a RegExp, running the ASCII translation on all-ASCII input and the original
 * otherwise: `test`, `exec`, `lastIndex` (kept across calls, as a RegExp's), `source`, `flags`, `global`, and the
 * `Symbol.match`/`matchAll`/`replace`/`search`/`split` methods through which `text.match(pattern)` and the rest
 * call it. Not a RegExp subclass: a subclass instance is a RegExp V8 does not treat as one on its fast paths,
 * and it would carry a third, unused compiled pattern.
 */
export class TextPattern {
  readonly source: string;
  readonly flags: string;
  readonly global: boolean;
  lastIndex = 0;
  readonly #asciiSource: string;
  #unicode: RegExp | undefined;
  #ascii: RegExp | undefined;

  constructor(source: string, flags: string) {
    if (flags.includes("v")) throw new Error("textPattern: the v flag's nested classes are not translated");
    this.source = source;
    this.flags = flags;
    this.global = flags.includes("g");
    // Translated now so that an unknown property fails when the module loads, not on some later input.
    this.#asciiSource = translateToAscii(source);
    registered.push(this);
  }

  toString(): string {
    return `/${this.source}/${this.flags}`;
  }

  /** The variant for `text`, compiled on first use. */
  variantFor(text: string): RegExp {
    if (isAscii(text)) {
      this.#ascii ??= new RegExp(this.#asciiSource, this.flags);
      return this.#ascii;
    }
    this.#unicode ??= new RegExp(this.source, this.flags);
    return this.#unicode;
  }

  #run<Result>(text: string, operation: (pattern: RegExp) => Result): Result {
    const pattern = this.variantFor(text);
    pattern.lastIndex = this.lastIndex;
    const result = operation(pattern);
    this.lastIndex = pattern.lastIndex;
    return result;
  }

  exec(text: string): RegExpExecArray | null {
    return this.#run(text, (pattern) => pattern.exec(text));
  }

  test(text: string): boolean {
    return this.#run(text, (pattern) => pattern.test(text));
  }

  [Symbol.match](text: string): RegExpMatchArray | null {
    return this.#run(text, (pattern) => pattern[Symbol.match](text));
  }

  [Symbol.matchAll](text: string): RegExpStringIterator<RegExpMatchArray> {
    return this.#run(text, (pattern) => pattern[Symbol.matchAll](text));
  }

  [Symbol.replace](
    text: string,
    replacement: string | ((substring: string, ...args: unknown[]) => string),
  ): string {
    return this.#run(text, (pattern) =>
      typeof replacement === "string"
        ? pattern[Symbol.replace](text, replacement)
        : pattern[Symbol.replace](text, replacement),
    );
  }

  [Symbol.search](text: string): number {
    return this.#run(text, (pattern) => pattern[Symbol.search](text));
  }

  [Symbol.split](text: string, limit?: number): string[] {
    return this.#run(text, (pattern) => pattern[Symbol.split](text, limit));
  }
}

/**
 * A pattern with Unicode property classes and an ASCII fast path; see `TextPattern`. Typed as a RegExp so
 * that call sites (`text.matchAll(pattern)`, whose TypeScript signature takes only a RegExp) stay unchanged;
 * it has every RegExp member those call sites use, which the equivalence test exercises.
 */
export function textPattern(source: string, flags: string): RegExp {
  return new TextPattern(source, flags) as unknown as RegExp;
}
