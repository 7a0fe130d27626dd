import { textPattern } from "../text/text-pattern.js";
import { CJK_PERSONS, KINSHIP, PRONOUN_PERSONS } from "./vocabulary.js";

// Unicode-property patterns with an ASCII fast path (text/text-pattern.ts).
const LETTER_RUN = textPattern(String.raw`[\p{L}'’-]+`, "gu");
const STARTS_UPPERCASE = textPattern(String.raw`^\p{Lu}`, "u");
const PRONOUN_I = textPattern(String.raw`^I(?:['’]\p{L}+)?$`, "u");
const HAS_HAN = textPattern(String.raw`[\p{Script=Han}]`, "u");
const STARTS_HAN = textPattern(String.raw`^[\p{Script=Han}]`, "u");
const HAN_POSSESSOR = textPattern(String.raw`^([\p{Script=Han}]{1,4}?)的`, "u");
const WORD_RUN = textPattern(String.raw`[\p{L}\p{N}'’-]+`, "gu");

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
  return [...text.matchAll(LETTER_RUN)]
    .filter((match) => match.index !== 0 && STARTS_UPPERCASE.test(match[0]) && !PRONOUN_I.test(match[0]))
    .map((match) => match[0].toLowerCase().replace(/['’]s?$/, ""))
    .filter((name) => name !== "user");
}

export function roleSequence(text: string, names: ReadonlySet<string> = new Set(namesIn(text))): string[] {
  const roles: string[] = [];
  const push = (role: string) => {
    if (roles.at(-1) !== role) roles.push(role);
  };
  for (const match of text.matchAll(LETTER_RUN)) {
    const word = match[0];
    const lower = word.toLowerCase().replace(/['’]s?$/, "");
    if (HAS_HAN.test(word)) {
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

/**
 * The names of both statements, in the order each one says them, the opening word included when the
 * other statement writes it as a name ("Anna is older than Ben" / "Btw, Ben is older than Anna").
 * Undefined when a list joins them ("French and German", "Tom, Ana"): a list has no order.
 */
function nameOrder(text: string, names: ReadonlySet<string>): string[] | undefined {
  const order: string[] = [];
  let last = -1;
  for (const match of text.matchAll(LETTER_RUN)) {
    const lower = match[0].toLowerCase().replace(/['’]s?$/, "");
    if (!names.has(lower) || order.includes(lower)) continue;
    if (last >= 0 && LIST_JOINER.test(text.slice(last, match.index))) return undefined;
    order.push(lower);
    last = match.index + match[0].length;
  }
  return order;
}
const LIST_JOINER = /,|;|&|\/|\b(?:and|or|und|oder|et|ou|y|o|e)\b/iu;

/**
 * Chinese puts the relation between the two parties: 安娜比本大 / 本比安娜大, 小王欠我 / 我欠小王. The same
 * relation word with what stands before it on one side found after it on the other is a swap.
 */
const CJK_RELATION = /比|欠|借给|还给|送给|教|打败|赢了|嫁给|娶了|向|给|是/u;
function cjkSwapped(a: string, b: string): boolean {
  const parts = (text: string) => {
    const clause = text.split(/[，,：:；;。！!]/u).findLast((piece) => piece.trim() !== "") ?? text;
    const match = CJK_RELATION.exec(clause);
    if (match === null) return undefined;
    const left = clause.slice(0, match.index).trim();
    return { relation: match[0], left, right: clause.slice(match.index + match[0].length) };
  };
  const first = parts(a);
  const second = parts(b);
  if (first === undefined || second === undefined || first.relation !== second.relation) return false;
  if (first.left === "" || second.left === "" || first.left === second.left) return false;
  return second.right.includes(first.left) && first.right.includes(second.left);
}

/** Both statements name two or more roles, and not in the same order. */
export function rolesSwapped(a: string, b: string): boolean {
  if (HAS_HAN.test(a) && HAS_HAN.test(b) && cjkSwapped(a, b)) return true;
  const names = new Set([...namesIn(a), ...namesIn(b)]);
  const firstNames = nameOrder(a, names);
  const secondNames = nameOrder(b, names);
  if (
    firstNames !== undefined &&
    secondNames !== undefined &&
    firstNames.length >= 2 &&
    sameMembers(firstNames, secondNames) &&
    firstNames.join(" ") !== secondNames.join(" ")
  ) {
    return true;
  }
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

/** Words that open a sentence without being its subject ("Actually, …", "Sorry, I meant …"). */
const LEAD_INS = new Set(
  "actually also now well so yes no oh ok okay sorry btw still today lately recently hey hi and but correction".split(
    " ",
  ),
);
const POSSESSORS: Readonly<Record<string, string>> = {
  my: "i",
  our: "we",
  his: "he",
  her: "she",
  their: "they",
};
/** Verbs that follow a name when the name is the subject ("Tom is 34", "Ana moved to Rome"). */
const SUBJECT_VERBS = new Set(
  "is was has had have lives lived likes liked loves loved works worked moved said says told thinks will can does doesn't isn't wasn't prefers wants hates drinks eats plays speaks".split(
    " ",
  ),
);
/** Pets and other animals a person may speak of: "my dog" is not "me". */
const ANIMALS = new Set(
  "dog puppy cat kitten horse pony bird parrot budgie rabbit bunny hamster fish goldfish turtle tortoise snake lizard ferret goat".split(
    " ",
  ),
);
const CJK_OWNERS: readonly [string, string][] = [
  ["我们", "we"],
  ["他们", "they"],
  ["她们", "they"],
  ["我", "i"],
  ["他", "he"],
  ["她", "she"],
];
const CJK_ANIMALS = /^(?:的)?(狗狗|小狗|狗|小猫|猫咪|猫|鸟|鹦鹉|兔子|仓鼠|金鱼|鱼|马|乌龟)/u;

/**
 * Who a statement is about, read from its first words, beyond the kinship words the features already
 * compare: the speaker ("I", "The user", 我), "we", a pronoun, a name that is the subject ("Tom is
 * 34", "Ana's birthday"), or an animal with its owner ("my dog", 我的狗). Undefined when the opening
 * does not say. "I am 34" is not about Tom, and "I am allergic to chicken" is not about my dog,
 * however many words the two share; "my birthday" and "my dentist appointment" are still about me.
 */
export function subjectOf(text: string): string | undefined {
  const trimmed = text.trim();
  if (STARTS_HAN.test(trimmed)) {
    const owner = CJK_OWNERS.find(([word]) => trimmed.startsWith(word));
    if (owner === undefined) {
      // 汤姆的生日: a possessor other than a pronoun or a kinship word (those the features compare) is a name.
      const possessor = HAN_POSSESSOR.exec(trimmed)?.[1];
      return possessor === undefined || CJK_PERSONS.some((person) => possessor.includes(person))
        ? undefined
        : `name:${possessor}`;
    }
    const animal = CJK_ANIMALS.exec(trimmed.slice(owner[0].length))?.[1];
    return animal === undefined
      ? owner[1]
      : `${owner[1]}:${animal.includes("狗") ? "狗" : animal.includes("猫") ? "猫" : animal}`;
  }
  const words = (trimmed.match(WORD_RUN) ?? []).slice(0, 10);
  let at = 0;
  const leadIn = (position: number) => {
    const word = (words[position] ?? "").toLowerCase();
    if (word === "i" && (words[position + 1] ?? "").toLowerCase() === "meant") return 2;
    return LEAD_INS.has(word) ? 1 : 0;
  };
  for (let skip = leadIn(at); skip > 0 && at < words.length; skip = leadIn(at)) at += skip;
  const first = words[at];
  if (first === undefined) return undefined;
  const possessive = /['’]s$/.test(first);
  const lower = first.toLowerCase().replace(/['’]s$/, "");
  const next = (words[at + 1] ?? "").toLowerCase();
  let owner: string;
  let owns = POSSESSORS[lower] !== undefined || possessive;
  if (lower === "the" && next.replace(/['’]s$/, "") === "user") {
    owner = "i";
    owns = /['’]s$/.test(next);
    at++;
  } else if (/^i(?:['’](?:m|ve|d|ll))?$/.test(lower) || lower === "me" || lower === "user") owner = "i";
  else if (lower === "we") owner = "we";
  else if (POSSESSORS[lower] !== undefined) owner = POSSESSORS[lower] ?? lower;
  else if (PRONOUN_PERSONS[lower] !== undefined) return PRONOUN_PERSONS[lower];
  else if (
    STARTS_UPPERCASE.test(first) &&
    KINSHIP[lower] === undefined &&
    (possessive || SUBJECT_VERBS.has(next))
  ) {
    owner = `name:${lower}`;
  } else return undefined;
  // An animal counts only as the possessed thing ("my dog", "Tom's cat"), not as an object ("I have a dog").
  if (!owns) return owner;
  const animal = words
    .slice(at + 1, at + 4)
    .map((word) =>
      word
        .toLowerCase()
        .replace(/['’]s$/, "")
        .replace(/s$/, ""),
    )
    .find((word) => ANIMALS.has(word));
  return animal === undefined ? owner : `${owner}:${animal}`;
}

/** Both statements say who they are about, and it is not the same one. */
export function subjectsDiffer(a: string, b: string): boolean {
  const first = subjectOf(a);
  const second = subjectOf(b);
  return first !== undefined && second !== undefined && first !== second;
}

/** Genitive links that put the owner after the owned: "the brother of my wife", "el jefe de mi jefe". */
const OWNER_AFTER = new Set(
  "of my|of our|of his|of her|de mi|de tu|de su|del|de ma|de mon|de mes|de sa|de son|meines|meiner|seines|seiner|ihres|ihrer|deines|deiner|von meinem|von meiner".split(
    "|",
  ),
);

/**
 * Who is whose, beyond which persons a statement names: "my wife's brother" is not "my brother's
 * wife", and "my manager's manager" is not "my manager" (the same word twice is a second person).
 * Takes the statement's tokens and the person read at each position; returns extra person keys.
 */
export function personChains(tokens: readonly string[], personAt: ReadonlyMap<number, string>): string[] {
  const chains: string[] = [];
  const counts = new Map<string, number>();
  let previous: [number, string] | undefined;
  for (const [position, person] of [...personAt].sort((a, b) => a[0] - b[0])) {
    const count = (counts.get(person) ?? 0) + 1;
    counts.set(person, count);
    if (count > 1) chains.push(`${person}#${count}`);
    if (previous !== undefined) {
      // English drops the "'s" in tokens: two persons side by side are owner then owned.
      const between = tokens.slice(previous[0] + 1, position).join(" ");
      if (between === "") chains.push(`${previous[1]}'s-${person}`);
      else if (OWNER_AFTER.has(between)) chains.push(`${person}'s-${previous[1]}`);
    }
    previous = [position, person];
  }
  return chains;
}

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item) => b.includes(item));
}
