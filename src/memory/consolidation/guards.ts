import { normalize } from "../text/analyze.js";
import { textPattern } from "../text/text-pattern.js";
import { changeInUsersWords } from "./change.js";
import { readChangeOfAnyClause } from "./clauses.js";
import { judgeByRules, NEGATES } from "./fallback.js";
import {
  countsDiffer,
  covers,
  difference,
  FUNCTIONAL_ATTRIBUTES,
  featuresOf,
  type StatementFeatures,
  sameNumbers,
  sameSet,
} from "./features.js";
import type { Judgement } from "./judge.js";
import { pronounMayReferTo } from "./neighbours.js";
import { jobOrThingEnded, retiredFromIt } from "./retired.js";
import { rolesSwapped, subjectOf, subjectsDiffer } from "./roles.js";

// Unicode-property patterns with an ASCII fast path (text/text-pattern.ts).
const HAS_HAN = textPattern(String.raw`\p{Script=Han}`, "u");
const LETTER_DIGIT_RUN = textPattern(String.raw`[\p{L}\p{N}]+`, "gu");
const SPACE_PUNCTUATION_RUN = textPattern(String.raw`[\s\p{P}]+`, "gu");

/**
 * Hard limits on what any judge (the model included) may conclude, checked on the statements
 * themselves: two statements that name different people, numbers or dates, or where one negates the
 * other, are never the same claim; and a statement about another person never updates this one's
 * facts. A verdict that breaks a limit becomes "different" (keep both) or, where the two cannot both
 * hold, "contradiction" (both kept, shown as a conflict), with the reason recorded.
 */
export function guardJudgement(
  judgement: Judgement,
  candidate: string,
  existing: string,
  /** The user's own words the candidate rests on (a user-stated quote), if any. */
  quote?: string | null,
): Judgement {
  if (judgement.verdict === "different") return negationNotMissed(judgement, candidate, existing);
  if (judgement.verdict !== "same" && judgement.verdict !== "update") return judgement;
  // "I am a nurse" / "I am a teacher now": a job word is also a person word ("my teacher"), but a
  // reading of the whole statements (retired.ts) has already shown the same speaker's role changed.
  const ended = jobOrThingEnded(candidate, existing);
  if (judgement.verdict === "update" && ended !== undefined) return judgement;
  // "上个月离职了" is not "我在腾讯工作" said again: a model's "same" on a reading that ends it is the update.
  if (ended !== undefined)
    return { verdict: "update", reason: `${judgement.by} said same, but ${ended}`, by: judgement.by };
  const a = featuresOf(candidate);
  const b = featuresOf(existing);
  const clash: string[] = [];
  // "I am 34" is not "Tom is 34", "I am allergic to chicken" is not "my dog is": another subject.
  // A model that read "she" as the stored statement's sister may update her fact (neighbours.ts says
  // when the pronoun can point there); never "same", and the rules never take that reading.
  const pronounUpdate =
    judgement.verdict === "update" && judgement.by !== "rules" && pronounMayReferTo(candidate, existing);
  if (!pronounUpdate && (!sameSet(a.persons, b.persons) || subjectsDiffer(candidate, existing)))
    clash.push("people");
  if (judgement.verdict === "same") {
    // "My best friend Mo" is one friend; "my friend" may be another: a named person on one side only
    // is not the same person.
    if (!sameSet(a.personNames, b.personNames) && !clash.includes("people")) clash.push("people");
    if (!sameNumbers(a, b) || countsDiffer(a, b)) clash.push("numbers");
    if (!sameSet(a.dates, b.dates) || !sameSet(a.when, b.when)) clash.push("dates");
    if (a.negated !== b.negated || a.past !== b.past) clash.push("polarity");
    if (a.tense !== b.tense) clash.push("tense");
    if (!sameSet(a.modality, b.modality)) clash.push("modality");
    if (rolesSwapped(candidate, existing)) clash.push("roles");
    if (!sameSet(a.exact, b.exact)) clash.push("codes or currencies");
  }
  // A renamed relation ("my girlfriend Anna" -> "my wife Anna") is still the same person, and the
  // new relation is itself the change.
  const renamedRelation =
    judgement.verdict === "update" &&
    [...a.personNames].some((name) => b.personNames.has(name)) &&
    !sameSet(a.persons, b.persons) &&
    isPartnerProgression(a.persons, b.persons);
  if (renamedRelation) clash.length = 0;
  if (judgement.verdict === "same") {
    // Two different names on the two sides ("my boss is Tom" / "my new boss is Jim") are two claims.
    const namesOnlyNew = difference(a.names, b.names);
    const namesOnlyOld = difference(b.names, a.names);
    if (namesOnlyNew.length > 0 && namesOnlyOld.length > 0) clash.push("names");
  }
  // A correction judged "same" ("Actually it's B21") would add a confirmation to the very claim it
  // corrects: both are kept and shown as a conflict.
  if (
    judgement.verdict === "same" &&
    !clash.includes("people") &&
    CORRECTION.test(normalize(candidate)) &&
    (clash.length > 0 || difference(a.terms, b.terms).length > 0)
  ) {
    return {
      verdict: "contradiction",
      reason: `${judgement.by} said same, but the new statement corrects the stored one; both kept as a conflict (${judgement.reason})`,
      by: judgement.by,
    };
  }
  if (clash.length > 0) {
    return {
      verdict: "different",
      reason: `${judgement.by} said ${judgement.verdict} but the ${clash.join(", ")} differ; both kept (${judgement.reason})`,
      by: judgement.by,
    };
  }
  return judgement.verdict === "same"
    ? guardSame(judgement, candidate, existing, a, b)
    : guardUpdate(
        judgement,
        candidate,
        existing,
        a,
        pronounUpdate ? withoutReferent(b, existing) : b,
        renamedRelation,
        quote,
      );
}

/** The stored statement's words without the name the pronoun stands for ("Ana" of "my sister Ana"). */
function withoutReferent(features: StatementFeatures, text: string): StatementFeatures {
  const subject = subjectOf(text);
  const referents = new Set([
    ...features.personNames,
    ...(subject?.startsWith("name:") ? [subject.slice(5)] : []),
  ]);
  return { ...features, terms: new Set([...features.terms].filter((term) => !referents.has(term))) };
}

/** "Actually…", "I meant…", 其实, 更正: the new statement corrects something, it does not repeat it. */
const CORRECTION = /\b(?:actually|correction|i meant|sorry|to be precise|rather)\b|其实|更正|纠正|说错|不对/u;

function guardSame(
  judgement: Judgement,
  candidate: string,
  existing: string,
  a: StatementFeatures,
  b: StatementFeatures,
): Judgement {
  const onlyNew = difference(a.terms, b.terms);
  // A paraphrase that shares nothing ("I drive a sedan" / "my vehicle is an automobile") is the
  // model's to recognise; its wordings all stay findable (see confirm). Once something is shared
  // (a word, a person, a number), a word the new statement adds is information ("I have a cat" /
  // "I have a cat allergy"), and words on both sides are two claims: both kept.
  const sharesSomething =
    [...a.terms].some((term) => b.terms.has(term)) ||
    a.persons.size > 0 ||
    a.numbers.size > 0 ||
    a.names.size > 0;
  if (!sharesSomething && oneWordSwapped(candidate, existing)) {
    // "I quit coffee" / "I quit sugar": the same sentence with one word swapped is another object,
    // person or value, never a paraphrase.
    return {
      verdict: "different",
      reason: `${judgement.by} said same, but the statements differ in one swapped word; both kept (${judgement.reason})`,
      by: judgement.by,
    };
  }
  if (sharesSomething && onlyNew.length > 0) {
    return {
      verdict: "different",
      reason: `${judgement.by} said same, but the new statement holds words the stored one lacks; both kept (${judgement.reason})`,
      by: judgement.by,
    };
  }
  if (!covers(candidate, existing) && !covers(existing, candidate) && sharesSomething) {
    return {
      verdict: "different",
      reason: `${judgement.by} said same, but each statement holds words the other lacks; both kept (${judgement.reason})`,
      by: judgement.by,
    };
  }
  return judgement;
}

/**
 * A model's "update" supersedes only what the statements' own words allow. Polarity, people and
 * numbers are the hard line: across them a model's update becomes a conflict (both kept, shown)
 * unless the new statement itself says the state changed for the same subject and attribute
 * (change.ts). A date is another event unless a change word moves it; a one-value attribute
 * (where someone lives, a code) may take a new value; anything else is kept as two facts.
 */
function guardUpdate(
  judgement: Judgement,
  candidate: string,
  existing: string,
  a: StatementFeatures,
  b: StatementFeatures,
  renamedRelation: boolean,
  quote: string | null | undefined,
): Judgement {
  const change = readChangeOfAnyClause(candidate, existing);
  if (change.kind === "update") return judgement;
  // "My grandfather works as a carpenter" / "My grandfather retired": the same person's work ended (retired.ts).
  if (retiredFromIt(candidate, existing) !== undefined) return judgement;
  if (quote && changeInUsersWords(quote, candidate, existing) !== undefined) return judgement;
  const keep = (verdict: "different" | "contradiction" | "same", why: string): Judgement => ({
    verdict,
    reason: `${judgement.by} said update, but ${why} (${judgement.reason})`,
    by: judgement.by,
  });
  // "What if I moved to Berlin?", "I might move", 我应该搬到柏林吗: a question, wish or condition the
  // stored statement does not share states nothing, so it replaces nothing.
  if (difference(a.modality, b.modality).length > 0) {
    return keep("different", "the new statement asks, wishes or supposes; it states no change; both kept");
  }
  // "I speak German too", "my other sister": a fact beside the stored one, not instead of it.
  if (a.additive) return keep("different", "the new statement adds a fact beside the stored one; both kept");
  const oldCoversNew = covers(existing, candidate);
  const samePolarity = a.negated === b.negated && a.past === b.past;
  // An "update" that only drops words would erase them: a shorter statement never does that.
  if (oldCoversNew && samePolarity && rolesSwapped(candidate, existing)) {
    return keep("different", "the same words with the people in other roles are another claim; both kept");
  }
  if (oldCoversNew && samePolarity) {
    // The same words in another tense ("I had a dog" / "I have a dog") are not a repetition.
    if (a.tense !== b.tense || !sameSet(a.exact, b.exact) || !sameSet(a.modality, b.modality)) {
      return keep(
        a.tense === "future" || b.tense === "future" ? "different" : "contradiction",
        "the same words in another tense or with another code are not a repetition; both kept",
      );
    }
    return keep(
      covers(candidate, existing) ? "same" : "different",
      "the new statement only repeats or drops part of the stored one",
    );
  }
  if (renamedRelation) return judgement;
  if (!samePolarity) {
    return keep(
      "contradiction",
      "one statement negates the other and the new one does not say the state changed; both kept as a conflict",
    );
  }
  if (!sameSet(a.numbers, b.numbers)) {
    return keep(
      "contradiction",
      "the numbers differ and the new statement does not say they changed; both kept as a conflict",
    );
  }
  if (CORRECTION.test(normalize(candidate))) {
    return keep("contradiction", "a correction the words cannot place is shown as a conflict");
  }
  const onlyNew = difference(a.terms, b.terms);
  const onlyOld = difference(b.terms, a.terms);
  if (!sameSet(a.dates, b.dates)) {
    // Two dates are two events ("dentist on Monday" / "on Friday") unless a word that moves a date
    // says so ("moved", "rescheduled", 改到): "I started at Acme in July" does not move "in June".
    return a.changed && onlyOld.length === 0 && MOVES_A_DATE.test(normalize(candidate))
      ? judgement
      : keep(
          "different",
          "a different date is another event unless the new statement says it moved; both kept",
        );
  }
  const attribute = oneValueChanged(a, b, onlyNew, onlyOld);
  if (attribute !== undefined && isUnit(onlyNew[0]) && isUnit(onlyOld[0])) {
    // "80 kg" / "80 lb": the same number in another unit is a mistake or a correction, not a new value.
    return keep("contradiction", "the same value in another unit; both kept as a conflict");
  }
  if (attribute !== undefined) {
    // Where someone was born does not change over time: a new value is a correction or a mistake,
    // and only the user can say which.
    return FIXED_ATTRIBUTES.has(attribute)
      ? keep("contradiction", `${attribute} does not change over time; both kept as a conflict`)
      : judgement;
  }
  if (change.kind === "review") return keep("contradiction", change.reason);
  // The model and the user's own change word ("I switched to Android") agree that something changed,
  // but the words cannot show it is the stored attribute: the user settles it.
  if (a.changed) {
    return keep(
      "contradiction",
      "the change cannot be placed on the stored statement's words; both kept as a conflict",
    );
  }
  return keep("different", "nothing says a state changed and no one-value attribute differs; both kept");
}

/** One-value attributes that never change over time (stems, as in FUNCTIONAL_ATTRIBUTES). */
const FIXED_ATTRIBUTES: ReadonlySet<string> = new Set(["born"]);

/**
 * The attribute whose value is one swapped word ("my wifi password is tulip42" / "daisy42"), if
 * the two statements differ only there.
 */
function oneValueChanged(
  newer: StatementFeatures,
  older: StatementFeatures,
  onlyNew: readonly string[],
  onlyOld: readonly string[],
): string | undefined {
  if (onlyNew.length !== 1 || onlyOld.length !== 1) return undefined;
  // "I no longer work at Google" / "… at Meta": a one-value attribute denied has many values.
  if (newer.negated || older.negated) return undefined;
  const attribute = [...newer.terms].find((term) => older.terms.has(term) && FUNCTIONAL_ATTRIBUTES.has(term));
  if (attribute === undefined) return undefined;
  // The differing word must come after the attribute in both statements (its value), not before it
  // (another subject: "my locker code" / "my bike lock code").
  const after = (features: StatementFeatures, word: string | undefined) => {
    const order = [...features.terms];
    return word !== undefined && order.indexOf(word) > order.indexOf(attribute);
  };
  return after(newer, onlyNew[0]) && after(older, onlyOld[0]) ? attribute : undefined;
}

/**
 * A judge that calls "I eat meat" / "I stopped eating meat" two different facts leaves two current
 * memories that deny each other, unflagged. When the statements say the same thing with opposite
 * polarity, or the new one says the stored state changed, it becomes a contradiction: both kept,
 * shown as a conflict for the user to settle.
 */
function negationNotMissed(judgement: Judgement, candidate: string, existing: string): Judgement {
  if (judgement.by === "rules") return judgement;
  const rules = judgeByRules(candidate, existing);
  // The words say the stored state changed or is denied: a model that disagrees does not leave two
  // current memories that deny each other unflagged, nor does it get overruled: the user settles it.
  const denied =
    (rules.verdict === "contradiction" && rules.reason === NEGATES) || rules.verdict === "update";
  if (!denied) return judgement;
  return {
    verdict: "contradiction",
    reason: `${judgement.by} said different, but ${rules.reason}; both kept as a conflict (${judgement.reason})`,
    by: judgement.by,
  };
}

/** Words that move a date or time: a model's "update" across two dates needs one of them. */
const MOVES_A_DATE =
  /\b(?:moved|move|rescheduled|reschedule|postponed|postpone|delayed|pushed|brought forward|changed|instead|now)\b|改到|改成|推迟|延期|提前|改期/u;

/** Units of measure (stems): a swap of the unit alone is not a new value. */
const UNITS: ReadonlySet<string> = new Set(
  "kg g mg mcg lb lbs pound stone oz ounc km m cm mm mi mile ft feet foot inch yard l ml liter litr gallon hour hr minut min second sec dai week month year c f percent euro dollar usd eur gbp pound yen kwh mph kph 公斤 斤 克 米 公里 厘米 小时 分钟 天 周 月 年 元 块".split(
    " ",
  ),
);

function isUnit(term: string | undefined): boolean {
  return term !== undefined && UNITS.has(term);
}

/** Partner words a relation can grow through: "my girlfriend Anna" may become "my wife Anna". */
const PARTNERS: ReadonlySet<string> = new Set([
  "girlfriend",
  "boyfriend",
  "partner",
  "fiance",
  "fiancee",
  "wife",
  "husband",
  "spouse",
  "男朋友",
  "女朋友",
  "未婚妻",
  "未婚夫",
  "妻子",
  "丈夫",
]);

/** Both sides name one partner each (a renamed relation), not a boss who became a "friend". */
function isPartnerProgression(newer: ReadonlySet<string>, older: ReadonlySet<string>): boolean {
  const onlyPartners = (persons: ReadonlySet<string>) =>
    persons.size > 0 && [...persons].every((person) => PARTNERS.has(person));
  return onlyPartners(newer) && onlyPartners(older);
}

/** The two statements are one sentence with exactly one word swapped ("I quit coffee" / "I quit sugar"). */
function oneWordSwapped(candidate: string, existing: string): boolean {
  if (HAS_HAN.test(candidate) && HAS_HAN.test(existing)) return oneSpanSwapped(candidate, existing);
  const words = (text: string) => normalize(text).match(LETTER_DIGIT_RUN) ?? [];
  const a = words(candidate);
  const b = words(existing);
  if (a.length !== b.length || a.length < 2) return false;
  return a.filter((word, position) => word !== b[position]).length === 1;
}

/**
 * Chinese has no spaces, and the segmenter may keep 喝茶 whole beside 喝 + 咖啡, so nothing is shared
 * word for word: 我不再喝咖啡了 / 我不再喝茶了 are still one sentence with one span swapped when most
 * of it (the start and the end) is the same.
 */
function oneSpanSwapped(candidate: string, existing: string): boolean {
  const a = [...normalize(candidate).replace(SPACE_PUNCTUATION_RUN, "")];
  const b = [...normalize(existing).replace(SPACE_PUNCTUATION_RUN, "")];
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  // A swap of negation or time words alone (不再 / 已经不) is the same claim worded otherwise.
  const content = (chars: string[]) =>
    chars
      .slice(prefix, chars.length - suffix)
      .join("")
      .replace(/不再|已经|已經|没有|沒有|现在|目前|如今|[不没沒了也还還都很就是的]/gu, "");
  return content(a) !== "" && content(b) !== "" && (prefix + suffix) * 2 >= Math.min(a.length, b.length);
}
