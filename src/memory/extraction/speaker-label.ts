/**
 * A line of a user's turn that opens with a label and a colon ("Tom: I am a pilot", "mom: I'm a
 * nurse", "Dr Lee:" on a line of its own above a pasted message) is someone's speech relayed by the
 * user, unless the label is the user's own name or handle ("me:", "Ana:" when the user is Ana) or a
 * word that opens a note rather than names a speaker ("Update:", "Note:", "PS:"). The rule errs toward
 * "relayed": an unknown label costs a fact its user-stated evidence (recorded as inferred, shown, kept),
 * while the other mistake would store someone else's words as the user's own claim.
 */

/** Words that open a note of the user's own; a short list, because everything else is a speaker. */
const LEAD_INS = new Set([
  ..."update updates note notes nb ps pps p.s fyi edit correction reminder btw addendum context background summary todo".split(
    " ",
  ),
  "heads up",
  "heads-up",
  // Asking to be remembered is the user speaking, not a speaker named "Remember".
  "remember",
  "remember this",
  "please remember",
  "important",
  "psa",
  "just so you know",
  "note to self",
  "reminder to self",
  "quick update",
  "quick note",
  "small update",
  "memo to self",
  // Interjections and connectives: never a speaker's name ("Also: I moved", "Yes: I am allergic").
  ..."also yes yeah no ok okay sorry oh well anyway actually and but so plus important".split(" "),
]);
/** Labels that are the user: "Me: I moved to Berlin". */
const SELF = new Set(["me", "i", "myself", "我"]);
const FIRST_PERSON = /(?:^|[^\p{L}])(?:i|i'm|im|me|my|mine|myself)(?=$|[^\p{L}])|我/iu;

/** "Tom:", "my boss:", "@ana_b:", "Dr. Lee:" at the start of a line, at most three words, then a colon and a space. */
const LABEL =
  /^\s*(?:[-*•>]\s*)?((?:@[\p{L}\p{N}_.]+)|\p{L}[\p{L}\p{N}'’.-]*(?:\s+[\p{L}\p{N}'’.-]+){0,2})\s*[:：](?:\s+|$)/u;

function collapse(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim().toLowerCase();
}

function labelName(label: string): string {
  return collapse(label).replace(/^@/, "");
}

interface LabelledLine {
  /** The collapsed line. */
  text: string;
  /** The label in force on this line (its own, or a bare "Tom:" line above it), if any. */
  label: string | undefined;
  /** Where the line's own label ends in `text` (0 when the label comes from a line above). */
  labelEnd: number;
}

function labelledLines(turn: string): LabelledLine[] {
  const lines: LabelledLine[] = [];
  let carried: string | undefined;
  for (const raw of turn.split("\n")) {
    const text = collapse(raw);
    if (text === "") {
      // A blank line ends a relayed block that opened with a bare "Tom:" line.
      carried = undefined;
      continue;
    }
    const match = LABEL.exec(raw.normalize("NFKC"));
    if (match?.[1] !== undefined) {
      const label = labelName(match[1]);
      const rest = collapse(raw.normalize("NFKC").slice(match[0].length));
      if (rest === "") carried = label;
      else carried = undefined;
      lines.push({ text, label, labelEnd: text.length - rest.length });
      continue;
    }
    lines.push({ text, label: carried, labelEnd: 0 });
  }
  return lines;
}

/**
 * True when the quote stands on a line labelled with someone else's name. `ownNames` are the user's
 * own names and handles (lower case).
 */
export function relayedByLabel(turn: string, quote: string, ownNames: readonly string[]): boolean {
  const needle = collapse(quote);
  if (needle === "") return false;
  const lines = labelledLines(turn);
  const joined = lines.map((line) => line.text).join(" ");
  const at = joined.indexOf(needle);
  if (at < 0) return false;
  let offset = 0;
  for (const line of lines) {
    const end = offset + line.text.length;
    if (at < end + 1) {
      const { label } = line;
      if (label === undefined || LEAD_INS.has(label) || SELF.has(label)) return false;
      // "I told them: …", "我说：…": the user speaking is no one else's label ("my boss:" still is).
      if (/^(?:i|we)(?:\s|$)|^我/u.test(label)) return false;
      if (ownNames.some((name) => labelName(name) === label)) return false;
      // A field label the quote itself holds, with no first person after it ("Allergies: peanuts"),
      // is the user's own note; any other label's words are the speaker's.
      const quoteHoldsLabel = at - offset < line.labelEnd;
      return !(quoteHoldsLabel && !FIRST_PERSON.test(needle.slice(line.labelEnd - (at - offset))));
    }
    offset = end + 1;
  }
  return false;
}

/** The user's own names from their key ("telegram:ana_b" gives "ana_b"; a numeric id gives none). */
export function ownNamesOf(userKey: string | undefined): string[] {
  if (userKey === undefined) return [];
  const last = userKey.split(":").pop() ?? "";
  return /\p{L}/u.test(last) ? [last.toLowerCase()] : [];
}
