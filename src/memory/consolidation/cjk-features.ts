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

const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_PERSON_ENTRIES: readonly [string, string][] = CJK_PERSONS.map((word) => [
  word,
  CJK_PERSON_CANONICAL[word] ?? word,
]);
/**
 * Japanese kinship and roles, read only in text with kana (a single 母 or 妹 in Chinese is part of a
 * longer word), to the Chinese canonical person: 妹 is not 姉, 兄の妻 is not 妻.
 */
const JA_PERSONS: readonly [string, string][] = Object.entries({
  お母さん: "母亲",
  母親: "母亲",
  祖母: "奶奶",
  叔母: "阿姨",
  伯母: "阿姨",
  義母: "婆婆",
  母: "母亲",
  お父さん: "父亲",
  父親: "父亲",
  祖父: "爷爷",
  叔父: "叔叔",
  伯父: "伯伯",
  義父: "公公",
  父: "父亲",
  お姉さん: "姐姐",
  姉: "姐姐",
  妹: "妹妹",
  お兄さん: "哥哥",
  兄: "哥哥",
  弟: "弟弟",
  息子: "儿子",
  娘: "女儿",
  主人: "丈夫",
  旦那: "丈夫",
  夫: "丈夫",
  奥さん: "妻子",
  妻: "妻子",
  彼氏: "男朋友",
  彼ら: "they",
  彼女: "she",
  彼: "he",
  上司: "上司",
  友達: "朋友",
  同僚: "同事",
  子供: "孩子",
  孫: "孙子",
}).sort((a, b) => b[0].length - a[0].length);

/** Modal and intent words in Chinese: a wish, plan, possibility or suggestion (建议: advice is not the fact). */
const CJK_MODALS = /想|应该|應該|可能|打算|希望|计划|計劃|需要|必须|必須|建议|建議|推荐|推薦/gu;

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
  // Each person with where it stands (blanked to the same length, so positions keep their order):
  // 我妻子的哥哥 is not 我哥哥的妻子, and 上司の上司 (my boss's boss) is not 上司.
  const found: [number, number, string][] = [];
  const japanese = KANA.test(run);
  for (const [word, person] of japanese ? [...JA_PERSONS, ...CJK_PERSON_ENTRIES] : CJK_PERSON_ENTRIES) {
    for (let at = rest.indexOf(word); at >= 0; at = rest.indexOf(word, at + word.length)) {
      found.push([at, at + word.length, person]);
    }
    if (rest.includes(word)) rest = rest.split(word).join(" ".repeat(word.length));
  }
  found.sort((a, b) => a[0] - b[0]);
  const counts = new Map<string, number>();
  found.forEach(([start, , person], index) => {
    into.persons.add(person);
    const count = (counts.get(person) ?? 0) + 1;
    counts.set(person, count);
    if (count > 1) into.persons.add(`${person}#${count}`);
    const before = found[index - 1];
    if (before !== undefined && /^[的之の]?$/u.test(rest.slice(before[1], start).trim())) {
      into.persons.add(`${before[2]}'s-${person}`);
    }
  });
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
