/**
 * The words the statement comparison knows (features.ts): kinship and roles, number words, dates,
 * negation and change-of-state markers, relation synonyms and one-value attributes. Lists, no logic.
 */
export const KINSHIP: Readonly<Record<string, string>> = Object.fromEntries(
  `mother mom mum mommy father dad daddy sister brother sibling wife husband spouse partner son daughter
  child kid baby girlfriend boyfriend fiance fiancee grandmother grandma granny grandfather grandpa aunt uncle
  cousin niece nephew friend boss manager colleague coworker roommate flatmate neighbor neighbour teacher
  doctor dentist therapist mentor grandson granddaughter stepmother stepfather stepson stepdaughter`
    .split(/\s+/)
    .filter((word) => word !== "")
    .flatMap((word) => [
      [word, word],
      [`${word}s`, word],
      [`${word}es`, word],
    ]),
);
export const IRREGULAR_PERSONS: Readonly<Record<string, string>> = {
  children: "child",
  wives: "wife",
  mothers: "mother",
  mom: "mother",
  mum: "mother",
  mommy: "mother",
  dad: "father",
  daddy: "father",
  grandma: "grandmother",
  granny: "grandmother",
  grandpa: "grandfather",
  kid: "child",
  kids: "child",
  neighbour: "neighbor",
  coworker: "colleague",
};
// Longest first, so 男朋友 is not read as 朋友.
export const CJK_PERSONS =
  `男朋友 女朋友 未婚妻 未婚夫 姐姐 妹妹 哥哥 弟弟 妻子 老婆 太太 丈夫 老公 儿子 女儿 妈妈 母亲
  爸爸 父亲 爷爷 奶奶 外公 外婆 朋友 同事 老板 孩子 室友 邻居 老师 医生 牙医 经理 上司
  表姐 表妹 表哥 表弟 堂姐 堂妹 堂哥 堂弟 叔叔 阿姨 舅舅 姑姑 伯伯 孙子 孙女 侄子 侄女 外甥 嫂子 姐夫 妹夫
  岳父 岳母 公公 婆婆 兽医`
    .split(/\s+/)
    .filter((word) => word !== "")
    .sort((a, b) => b.length - a.length);
export const CJK_PERSON_CANONICAL: Readonly<Record<string, string>> = {
  老婆: "妻子",
  太太: "妻子",
  老公: "丈夫",
  妈妈: "母亲",
  爸爸: "父亲",
};

export const NUMBER_WORDS: Readonly<Record<string, number>> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
  twice: 2,
  once: 1,
};
export const CJK_DIGITS: Readonly<Record<string, number>> = {
  零: 0,
  一: 1,
  二: 2,
  两: 2,
  三: 3,
  四: 4,
  五: 5,
  六: 6,
  七: 7,
  八: 8,
  九: 9,
};
/** A Chinese numeral counts only before a measure word: 一 alone is also "one/a" in many words. */
export const CJK_NUMBER =
  /([零一二两三四五六七八九十百]+)(?=[岁个只年次天口人位本杯公斤米点号月周小分块元])/gu;

export const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
// "may" is left out: it is far more often a verb than the month.
export const MONTHS =
  `january february march april june july august september october november december`.split(" ");
export const RELATIVE_DAYS = ["today", "tomorrow", "yesterday", "tonight", "weekend", "weekday", "weekdays"];
export const CJK_DATE =
  /(?:星期|周|礼拜)[一二三四五六日天末]|今天|明天|昨天|后天|前天|今晚|(?:\d+|[一二三四五六七八九十]+)月(?:(?:\d+|[一二三四五六七八九十]+)[日号])?/gu;
export const CJK_WEEKDAY_CANONICAL: Readonly<Record<string, string>> = {
  一: "monday",
  二: "tuesday",
  三: "wednesday",
  四: "thursday",
  五: "friday",
  六: "saturday",
  日: "sunday",
  天: "sunday",
  末: "weekend",
};
export const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
export const TIME_OF_DAY = /\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b/g;

export const CJK_NEGATION = /不再|没有|沒有|不|没|沒|无|無|未|别/gu;
export const CJK_PAST = /以前|曾经|過去|过去|原来|不再/u;
export const CJK_STOPWORDS = new Set(
  "我 我的 的 了 是 在 对 很 也 都 和 要 去 有 用户 到 到了 现在 今年 目前 已经 一直 会 还 我在 我是 我有 我对 我会 我要".split(
    " ",
  ),
);

/**
 * Relation verbs that name the same attribute, folded onto one term, so "lives in Paris" and
 * "moved to Berlin" are seen as two values of one attribute. English stems and CJK characters.
 */
export const RELATION_SYNONYMS: Readonly<Record<string, string>> = {
  move: "live",
  moved: "live",
  reloc: "live",
  resid: "live",
  home: "live",
  // "based in Lisbon" says where someone is, like "lives in".
  base: "live",
  employ: "work",
  job: "work",
  favourit: "favorit",
  love: "like",
  enjoi: "like",
  prefer: "like",
};
export const CJK_RELATIONS: readonly [RegExp, string][] = [
  // 最喜欢 first: read as 喜欢 it would hide the one-value attribute "favourite".
  [/最喜欢/u, "favorit"],
  [/住|搬|居住/u, "live"],
  // 叫 / 名字: what someone is called, a one-value attribute like "name".
  [/叫|名字/u, "name"],
  [/工作|上班/u, "work"],
  [/喜欢|爱|偏好/u, "like"],
];

/**
 * Attributes a person has one value of at a time. Only for these does the fallback flag two values
 * as a possible update (a conflict for the user); for anything else ("likes green tea" / "likes
 * black tea") two values are two facts.
 */
export const FUNCTIONAL_ATTRIBUTES: ReadonlySet<string> = new Set([
  "live",
  "work",
  "favorit",
  "name",
  "ag",
  "age",
  "old",
  "born",
  "marri",
  "address",
  "phone",
  "email",
  "code",
  "password",
  "weigh",
  "height",
  "tall",
  "salari",
  "岁",
]);

/** Terms that only mark time or subject; they carry no content of their own. */
export const NEUTRAL_TERMS = new Set([
  "user",
  "anymor",
  "formerli",
  "previous",
  "former",
  "current",
  "now",
  "still",
  "actual",
]);

/** Words before a kinship or role word that make it another person: "my ex-wife" is not "my wife". */
export const PERSON_MODIFIERS: ReadonlySet<string> = new Set([
  "ex",
  "late",
  "former",
  "future",
  "deceased",
  "step",
  "half",
]);

/**
 * Pronouns name a person too: "She is a nurse" is not "He is a nurse". Folded to one form each
 * (him/his -> he); "it" is left out (a thing, not a person).
 */
export const PRONOUN_PERSONS: Readonly<Record<string, string>> = {
  he: "he",
  him: "he",
  his: "he",
  himself: "he",
  she: "she",
  her: "she",
  hers: "she",
  herself: "she",
  they: "they",
  them: "they",
  their: "they",
  theirs: "they",
  // Said to the user, "you" is the user; said by the user, the assistant. Either way it is not "I".
  you: "you",
  your: "you",
  yours: "you",
  we: "we",
  our: "we",
  ours: "we",
};
// Longest first, so 他们 is not read as 他.
export const CJK_PRONOUNS: readonly [string, string][] = [
  ["他们", "they"],
  ["她们", "they"],
  ["我们", "we"],
  ["你们", "you+"],
  ["你", "you"],
  ["您", "you"],
  ["他", "he"],
  ["她", "she"],
];

/** Irregular plurals of persons: "my kids" are not "my kid". */
export const PLURAL_PERSONS: ReadonlySet<string> = new Set(["children", "wives", "kids", "parents"]);

/**
 * Verbs that end a state ("I quit smoking", "I divorced Tom"): the claim is about a past state, like
 * "no longer". Some also name the attribute they end (divorce ends a marriage, retiring ends work).
 */
export const ENDING_VERBS: Readonly<Record<string, string | null>> = {
  quit: null,
  quits: null,
  quitting: null,
  stop: null,
  stops: null,
  stopped: null,
  stopping: null,
  retired: "work",
  retire: "work",
  divorced: "marri",
  divorce: "marri",
};

/** Words that say a state changed (moved, switched, now...): a model's "update" needs one, or a one-value attribute. */
export const CHANGE_MARKERS: ReadonlySet<string> = new Set([
  "now",
  "moved",
  "move",
  "relocated",
  "switched",
  "switch",
  "changed",
  "change",
  "became",
  "become",
  "got",
  "new",
  "anymore",
  "longer",
  "quit",
  "stopped",
  "started",
  "start",
  "divorced",
  "married",
  "retired",
  "currently",
  "today",
  "instead",
  "actually",
  "rescheduled",
  "postponed",
  "delayed",
  "cancelled",
  "canceled",
]);

/** Words that add a fact beside another ("I speak German too", "my other sister"): never an update. */
export const ADDITIVE_MARKERS: ReadonlySet<string> = new Set([
  "too",
  "also",
  "another",
  "other",
  "additionally",
  "second",
  "both",
]);
export const CJK_ADDITIVE = /也|又|还有|另一|其他/u;
export const CJK_CHANGE = /现在|搬|换|改|不再|已经|开始|戒|离婚|结婚|辞职/u;

/** Relative times ("last month", "recently"): when a change happened, not what the claim is about. */
export const RELATIVE_TIME =
  /\b(?:last|this|next|past) (?:week|wk|month|year|yr|summer|winter|spring|autumn|fall)\b|\b(?:recently|lately|ago|just)\b/g;
