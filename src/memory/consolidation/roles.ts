import { KINSHIP, PRONOUN_PERSONS } from "./vocabulary.js";

/**
 * Who stands where in a statement, in order: the speaker ("I", "me", "my", 我), other pronouns, kinship
 * words and names. "I lent Tom 50 dollars" is [i, tom], "Tom lent me 50 dollars" is [tom, i]: the same
 * words with the roles swapped are another claim, never "the same". Pronouns count wherever they stand
 * ("I borrowed his car" / "her car"). Consecutive repeats fold ("I … my" is one speaker).
 */
const SPEAKER = new Set(["i", "me", "my", "mine", "myself"]);
const CJK_ROLES = /我们|你们|他们|她们|我|你|您|他|她|它|[爸妈哥姐弟妹爷奶叔姨舅姑]/gu;

/** Capitalized words not opening the text: names, compared in any case on both sides. */
function namesIn(text: string): string[] {
  return [...text.matchAll(/[\p{L}'’-]+/gu)]
    .filter(
      (match) => match.index !== 0 && /^\p{Lu}/u.test(match[0]) && !/^I(?:['’]\p{L}+)?$/u.test(match[0]),
    )
    .map((match) => match[0].toLowerCase().replace(/['’]s?$/, ""))
    .filter((name) => name !== "user");
}

export function roleSequence(text: string, names: ReadonlySet<string> = new Set(namesIn(text))): string[] {
  const roles: string[] = [];
  const push = (role: string) => {
    if (roles.at(-1) !== role) roles.push(role);
  };
  for (const match of text.matchAll(/[\p{L}'’-]+/gu)) {
    const word = match[0];
    const lower = word.toLowerCase().replace(/['’]s?$/, "");
    if (/[\p{Script=Han}]/u.test(word)) {
      for (const role of word.matchAll(CJK_ROLES)) push(role[0] === "您" ? "你" : role[0]);
      continue;
    }
    // "The user" in a stored memory is the speaker of "I …".
    if (SPEAKER.has(lower) || lower === "i'm" || lower === "i've" || lower === "i'll" || lower === "user")
      push("i");
    else if (lower === "we" || lower === "us" || lower === "our") push("we");
    else if (lower === "you" || lower === "your") push("you");
    else if (PRONOUN_PERSONS[lower] !== undefined) push(PRONOUN_PERSONS[lower] ?? lower);
    else if (KINSHIP[lower] !== undefined) push(KINSHIP[lower] ?? lower);
    // Names (places, languages, people) count as one slot: "French and German" / "German and French"
    // keep their roles; "I lent Tom" / "Tom lent me" do not.
    else if (names.has(lower)) push("name");
  }
  return roles;
}

/** Both statements name two or more roles, and not in the same order. */
export function rolesSwapped(a: string, b: string): boolean {
  const names = new Set([...namesIn(a), ...namesIn(b)]);
  const first = roleSequence(a, names);
  const second = roleSequence(b, names);
  if (first.length < 2 && second.length < 2) {
    // One role each: a pronoun that differs ("his car" / "her car") is another person.
    const pronoun = (roles: string[]) =>
      roles.filter((role) => role === "he" || role === "she" || role === "they");
    return pronoun(first).join() !== pronoun(second).join();
  }
  return first.join(" ") !== second.join(" ");
}
