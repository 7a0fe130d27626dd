/**
 * Look-alike defence. Names are compared after NFKC (fullwidth "ｒｍ" becomes "rm"), with invisible
 * format characters removed (zero-width space/joiner, bidi controls), common Cyrillic and Greek
 * homoglyphs folded to Latin, and lower-cased (case-insensitive file systems: ~/.SSH is ~/.ssh).
 */

// Letters that render like Latin ones; enough to catch ".ѕsh" or "іd_rsa" style tricks.
const confusables: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  һ: "h",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ɡ: "g",
  ո: "n",
  ս: "u",
  α: "a",
  β: "b",
  ε: "e",
  η: "n",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  ı: "i",
  ℓ: "l",
  "∕": "/",
  "⁄": "/",
  "／": "/",
};

const invisible = /(?:\p{Cf}|\u034f|\u115f|\u1160|\u3164|\uffa0)/gu;

export function hasInvisibleCharacters(text: string): boolean {
  invisible.lastIndex = 0;
  return invisible.test(text);
}

/** True when the text has characters outside printable ASCII (besides tab and newline). */
export function hasNonAscii(text: string): boolean {
  return /[^\t\n\x20-\x7e]/.test(text);
}

/** The comparison form: NFKC, invisible characters removed, homoglyphs folded, lower case. */
export function foldForComparison(text: string): string {
  const nfkc = text.normalize("NFKC").replace(invisible, "");
  let out = "";
  for (const char of nfkc.toLowerCase()) out += confusables[char] ?? char;
  return out;
}
