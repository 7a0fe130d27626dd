import { textPattern } from "../text/text-pattern.js";
import type { StatementFeatures } from "./features.js";
import {
  CJK_ADDITIVE,
  CJK_CHANGE,
  CJK_DATE,
  CJK_DIGITS,
  CJK_NEGATION,
  CJK_NUMBER,
  CJK_PAST,
  CJK_PERSON_CANONICAL,
  CJK_PERSONS,
  CJK_PRONOUNS,
  CJK_RELATIONS,
  CJK_STOPWORDS,
  CJK_WEEKDAY_CANONICAL,
} from "./vocabulary.js";

// Unicode-property patterns with an ASCII fast path (text/text-pattern.ts).
const HAN_SUBJECT = textPattern(String.raw`的(\p{Script=Han}{1,3})$`, "u");

/** Modal and intent words in Chinese: a wish, plan or possibility. */
const CJK_MODALS = /想|应该|應該|可能|打算|希望|计划|計劃|需要|必须|必須/gu;

/** The statement features of a run of CJK text (persons, numbers, dates, negation, modality, words). */
function cjkNumber(raw: string): number {
  if (!raw.includes("十") && !raw.includes("百")) {
    return Number([...raw].map((char) => CJK_DIGITS[char] ?? 0).join(""));
  }
  let total = 0;
  let current = 0;
  for (const char of raw) {
    if (char === "百") {
      total += (current || 1) * 100;
      current = 0;
    } else if (char === "十") {
      total += (current || 1) * 10;
      current = 0;
    } else current = CJK_DIGITS[char] ?? 0;
  }
  return total + current;
}

export function cjkFeatures(run: string, into: StatementFeatures): void {
  let rest = run;
  for (const match of run.matchAll(CJK_DATE)) {
    const text = match[0];
    const weekday = /^(?:星期|周|礼拜)(.)$/u.exec(text);
    into.dates.add(weekday ? (CJK_WEEKDAY_CANONICAL[weekday[1] ?? ""] ?? text) : text);
    rest = rest.replace(text, " ");
  }
  for (const match of rest.matchAll(CJK_NUMBER)) {
    into.numbers.add(String(cjkNumber(match[1] ?? "")));
    rest = rest.replace(match[1] ?? "", " ");
  }
  // A pronoun opening the statement is its subject (他是护士 is not 她是护士).
  for (const [pronoun, person] of CJK_PRONOUNS) {
    if (!rest.startsWith(pronoun)) continue;
    into.persons.add(person);
    rest = rest.slice(pronoun.length);
    break;
  }
  // 大姐 and 二姐 are two sisters: an ordinal or "eldest/youngest" before a kin word is part of the person.
  for (const match of rest.matchAll(/([大二三四五六七八小老幺])([姐妹哥弟叔姨舅姑伯])/gu)) {
    into.persons.add(match[0]);
    rest = rest.replace(match[0], " ");
  }
  for (const person of CJK_PERSONS) {
    if (!rest.includes(person)) continue;
    into.persons.add(CJK_PERSON_CANONICAL[person] ?? person);
    rest = rest.split(person).join(" ");
  }
  if (CJK_CHANGE.test(rest)) into.changed = true;
  if (CJK_ADDITIVE.test(rest)) into.additive = true;
  if (CJK_PAST.test(rest)) into.past = true;
  for (const match of rest.matchAll(CJK_MODALS)) into.modality.add(match[0]);
  // 不再 is "no longer": past and negated, as in English, so 我不再吃肉了 and 我已经不吃肉了 are one claim.
  if (rest.includes("不再")) into.negated = true;
  if (rest.replace(/不再/gu, "").match(CJK_NEGATION)) {
    into.negated = true;
    // 没/没有/未 deny that something happened; 不 denies a habit or a state: "我没吃猪肉" is not "我不吃猪肉".
    if (/没|沒|未/u.test(rest)) into.tense = "past";
    // "不…了" (不在腾讯工作了, 不过敏了) and 已经不 say a state ended, like "no longer".
    if (/了\s*$|已经不|已經不/u.test(run)) into.past = true;
  }
  rest = rest.replace(/以前|曾经|过去|過去|原来/gu, " ").replace(CJK_NEGATION, " ");
  // A possessed thing right before the relation is its subject: in 我家的猫叫咪咪 / 我家的狗叫咪咪 the
  // animal differs, not the name. It goes in front of the relation (the words after a relation are
  // its value); elsewhere the relation comes first, as Chinese puts a place before the verb (在谷歌工作).
  for (const [pattern, relation] of CJK_RELATIONS) {
    const match = pattern.exec(rest);
    if (match === null) continue;
    const subject = HAN_SUBJECT.exec(rest.slice(0, match.index))?.[1];
    if (subject !== undefined && !CJK_STOPWORDS.has(subject)) {
      into.terms.add(subject);
      rest = `${rest.slice(0, match.index - subject.length)} ${rest.slice(match.index)}`;
    }
    into.terms.add(relation);
    rest = rest.replace(pattern, " ");
  }
  const segmenter = new Intl.Segmenter("zh", { granularity: "word" });
  for (const piece of rest.split(/\s+/)) {
    for (const part of segmenter.segment(piece)) {
      if (!part.isWordLike || CJK_STOPWORDS.has(part.segment)) continue;
      into.terms.add(part.segment);
    }
  }
}
