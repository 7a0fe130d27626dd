import { textPattern } from "../text/text-pattern.js";

/** A Chinese character anywhere, and one opening the text (Chinese statements take their own readings). */
const HAN = textPattern(String.raw`\p{Script=Han}`, "u");
const STARTS_HAN = textPattern(String.raw`^[\p{Script=Han}]`, "u");

/**
 * "No longer" in the languages people write to Mercury: "gave up", "ya no", "dejé de", "nicht mehr",
 * "kein … mehr", "ne … plus", "n'… plus". The marker is taken out of the statement and reported, so
 * what is left ("como carne", "ich esse Fleisch", "je mange de viande") is compared with the stored
 * statement word for word, exactly as "I no longer eat meat" is: the state ended only when subject,
 * attribute, object, numbers and dates all match (change.ts), never on the marker alone.
 */

/** French elision ("j'habite", "n'ai", "l'aime"): the normaliser drops the apostrophe and fuses the words. */
const ELISION = textPattern(String.raw`\b(qu|[jnldmstc])['’](?=\p{L})`, "giu");

/**
 * Holds wherever `ELISION` matches: its letter after a non-word character (ASCII `\w` here; a
 * Unicode `\b` counts "ſ" and the Kelvin sign as word characters too, so this accepts more, never
 * less), "ſ" spelled out because only the Unicode pattern folds it onto "s".
 */
const MAY_ELIDE = /(?:^|\W)(?:qu|[jnldmstcſ])['’]/i;

/** What a marker leaves of its words: a fixed string, or a function of the match (conjugation). */
type Replacement = string | ((match: string, ...groups: string[]) => string);

/**
 * Each marker with what is left of its words once it is taken out, and a word part every match
 * holds (lower case, ASCII, no "s" or "k"… see `mayHold`): a marker whose part is not in the text is
 * not tried. Compiling these patterns on their first run (case-insensitive Unicode ones, with `\b`)
 * costs a `memory add` ~2 ms of CPU, and almost no statement holds any of them.
 */
const ENDED: readonly (readonly [RegExp, Replacement, string])[] = [
  // English: "gave up coffee", "I've given up smoking".
  [/\b(?:gave|give|gives|giving|given)\s+up\b/giu, " ", "up"],
  // Spanish: "ya no como carne", "nunca más", "no como más carne" (not "no gano más que…", a comparison).
  [/\bya\s+no\b/giu, " ", "ya"],
  [/\bnunca\s+m[aá]s\b/giu, " ", "nunca"],
  [/\bno\s+((?:[^\s.,;!?]+\s+){0,2}?[^\s.,;!?]+)\s+m[aá]s\b(?!\s+(?:que|de)\b)/giu, " $1 ", "no"],
  // "dejé de trabajar" is "ya no trabajo": the infinitive takes the marker's person, so it meets the
  // stored "trabajo" word for word (a verb the table cannot conjugate stays as it is: kept apart).
  [
    /\b(dej[eé]|dejaste|dej[oó]|dejamos|dejaron|(?:he|has|ha|hemos|han)\s+dejado)\s+de\s+([a-z]+?)(ar|er|ir)\b/giu,
    (_match, marker: string, stem: string, ending: string) =>
      ` ${spanishPresent(stem, ending, spanishPerson(marker))} `,
    "dej",
  ],
  [/\b(?:dej[eéoó]|dejaste|dejamos|dejaron|(?:he|ha|hemos|han)\s+dejado)\s+de\b/giu, " ", "dej"],
  // German: "ich rauche nicht mehr", "ich esse kein Fleisch mehr" (the article is what "kein" negates).
  [/\bnicht\s+mehr\b/giu, " ", "mehr"],
  [/\bkein(e|en|em|er|es)?\b((?:\s+[^\s.,;!?]+){1,3}?)\s+mehr\b/giu, " ein$1$2 ", "mehr"],
  // "ich habe aufgehört(,) Fleisch zu essen" is "ich esse kein Fleisch mehr".
  [
    /\b(habe|hast|hat|haben|habt)\s+((?:[^\s.,;!?]+\s+){0,2}?)aufgeh(?:ö|oe|o)rt,?\s+((?:[^\s.,;!?]+\s+){0,3}?)zu\s+([a-zäöüß]+?)(en|n)\b/giu,
    (_match, auxiliary: string, between: string, object: string, stem: string) =>
      ` ${between}${object}${germanPresent(stem, auxiliary.toLowerCase())} `,
    "aufgeh",
  ],
  // French: "je ne mange plus de viande", "je n'habite plus à Lyon" (after the elision is undone).
  [/\bne\s+((?:[^\s.,;!?]+\s+){0,2}?[^\s.,;!?]+)\s+plus\b/giu, " $1 ", "plu"],
  // "j'ai arrêté de fumer" / "j'ai cessé de fumer" is "je ne fume plus" (regular -er verbs).
  [
    /\b(ai|as|a|avons|avez|ont)\s+(?:arr[eê]t[eé]|cess[eé])\s+de\s+([a-zàâçéèêëîïôûù]+?)er\b/giu,
    (_match, auxiliary: string, stem: string) => ` ${stem}${FRENCH_ER[auxiliary.toLowerCase()] ?? "e"} `,
    "de",
  ],
];

/** Grammatical person of a Spanish "dejar" form: 0 yo, 1 tú, 2 él/ella, 3 nosotros, 4 ellos. */
function spanishPerson(marker: string): number {
  const word = marker.toLowerCase();
  if (/^(?:dej[eé]|he\s)/u.test(word)) return 0;
  if (/^(?:dejaste|has\s)/u.test(word)) return 1;
  if (/^(?:dejamos|hemos\s)/u.test(word)) return 3;
  if (/^(?:dejaron|han\s)/u.test(word)) return 4;
  return 2;
}

/** Present-tense endings by person for -ar, -er and -ir verbs. */
const SPANISH_ENDINGS: Readonly<Record<string, readonly string[]>> = {
  ar: ["o", "as", "a", "amos", "an"],
  er: ["o", "es", "e", "emos", "en"],
  ir: ["o", "es", "e", "imos", "en"],
};
/** Common verbs whose present is not stem + ending (stem change or irregular). */
const SPANISH_IRREGULAR: Readonly<Record<string, readonly string[]>> = {
  jugar: ["juego", "juegas", "juega", "jugamos", "juegan"],
  ir: ["voy", "vas", "va", "vamos", "van"],
  tener: ["tengo", "tienes", "tiene", "tenemos", "tienen"],
  hacer: ["hago", "haces", "hace", "hacemos", "hacen"],
  salir: ["salgo", "sales", "sale", "salimos", "salen"],
  dormir: ["duermo", "duermes", "duerme", "dormimos", "duermen"],
  querer: ["quiero", "quieres", "quiere", "queremos", "quieren"],
  volver: ["vuelvo", "vuelves", "vuelve", "volvemos", "vuelven"],
  pensar: ["pienso", "piensas", "piensa", "pensamos", "piensan"],
  preferir: ["prefiero", "prefieres", "prefiere", "preferimos", "prefieren"],
  ver: ["veo", "ves", "ve", "vemos", "ven"],
};

function spanishPresent(stem: string, ending: string, person: number): string {
  const infinitive = `${stem}${ending}`.toLowerCase();
  const irregular = SPANISH_IRREGULAR[infinitive];
  if (irregular) return irregular[person] ?? infinitive;
  return `${stem}${SPANISH_ENDINGS[ending.toLowerCase()]?.[person] ?? ending}`;
}

function germanPresent(stem: string, auxiliary: string): string {
  // "arbeiten" -> "er arbeitet": a stem ending in t or d takes an extra e.
  const joint = /[td]$/u.test(stem) ? "e" : "";
  const ending: Readonly<Record<string, string>> = {
    habe: "e",
    hast: `${joint}st`,
    hat: `${joint}t`,
    haben: "en",
    habt: `${joint}t`,
  };
  return `${stem}${ending[auxiliary] ?? "en"}`;
}

const FRENCH_ER: Readonly<Record<string, string>> = {
  ai: "e",
  as: "es",
  a: "e",
  avons: "ons",
  avez: "ez",
  ont: "ent",
};

export { FOREIGN_FUNCTION_WORDS } from "./foreign-words.js";

export interface EndedReading {
  /** The statement with French elision undone and every "no longer" marker taken out. */
  text: string;
  /** True when the statement said the state ended. */
  ended: boolean;
}

/**
 * False only when no match of a case-insensitive Unicode pattern can hold `part` (lower-case ASCII
 * letters other than "s", whose case-insensitive matches include "ſ", which `toLowerCase` keeps):
 * every other letter such a pattern matches lower-cases to the letter itself ("K", the Kelvin sign,
 * to "k").
 */
function mayHold(lowerCased: string, part: string): boolean {
  return lowerCased.includes(part);
}

export function readEnded(text: string): EndedReading {
  // Most apostrophes are no elision ("user's", "I'm", "don't"): the Unicode pattern (~0.7 ms to
  // compile on its first run) runs only where `MAY_ELIDE`, which every one of its matches satisfies, finds one.
  let rewritten = MAY_ELIDE.test(text) ? text.replace(ELISION, (_match, word: string) => `${word}e `) : text;
  let ended = false;
  let lowerCased = rewritten.toLowerCase();
  for (const [pattern, replacement, part] of ENDED) {
    if (!mayHold(lowerCased, part)) continue;
    pattern.lastIndex = 0;
    if (!pattern.test(rewritten)) continue;
    pattern.lastIndex = 0;
    ended = true;
    rewritten =
      typeof replacement === "string"
        ? rewritten.replace(pattern, replacement)
        : rewritten.replace(pattern, replacement as (match: string, ...groups: string[]) => string);
    lowerCased = rewritten.toLowerCase();
  }
  return { text: rewritten, ended };
}

/**
 * Other ways the same person's stated job, role or thing ends or changes, said with verbs that share
 * no value with the stored statement: "I work at Acme" / "left Acme in June" (quit, resigned, dejé,
 * gekündigt, quitté, 离职, 辞职, 退職); "I drive a Honda Civic" / "sold my Civic" (vendí, verkauft, vendu,
 * 卖了); "I am a nurse" / "I am a teacher now" (soy … / ahora soy, ich bin jetzt, je suis maintenant,
 * 我现在是); "I work at Acme as a junior engineer" / "I got promoted to senior engineer at Acme" (升职为).
 * Each reading is anchored on whole statements of a fixed shape — the user (or the same "my <kin>") as
 * subject, nothing said beside it but when — so a third party's change, a list, a time of day ("left
 * work at 6pm") or another object never matches; anything else stays with the other rules.
 */
interface EndingShapes {
  trigger: RegExp;
  leftJob: readonly RegExp[];
  works: readonly RegExp[];
  sold: readonly RegExp[];
  has: readonly RegExp[];
  jobNow: readonly RegExp[];
  job: readonly RegExp[];
  promoted: readonly RegExp[];
  age: RegExp;
  turned: RegExp;
  jobs: ReadonlySet<string>;
  when: RegExp;
  list: RegExp;
}

let shapes: EndingShapes | undefined;

/** Built on first use and kept: most statements reach none of these readings (`mayEnd` turns them away). */
function endingShapes(): EndingShapes {
  shapes ??= buildShapes();
  return shapes;
}

function buildShapes(): EndingShapes {
  const jobs = new Set(
    `nurse teacher doctor physician engineer developer programmer lawyer accountant designer student architect
    pilot chef cook waiter waitress driver manager consultant analyst scientist researcher professor lecturer
    dentist pharmacist electrician plumber carpenter mechanic firefighter journalist writer editor artist
    musician photographer farmer cashier barista baker butcher vet veterinarian therapist psychologist
    paramedic surgeon librarian translator secretary receptionist banker economist director lead intern
    enfermera enfermero profesor profesora médico médica ingeniero ingeniera abogado abogada estudiante
    camarero camarera gerente cocinero cocinera krankenpfleger krankenschwester lehrer lehrerin arzt ärztin
    ingenieur ingenieurin anwalt anwältin koch köchin entwickler entwicklerin infirmier infirmière professeur
    professeure médecin ingénieur ingénieure avocat avocate étudiant étudiante cuisinier cuisinière
    护士 老师 教师 医生 工程师 律师 学生 会计 设计师 程序员 厨师 司机 经理 主管 总监 研究员 教授`.split(
      /\s+/,
    ),
  );
  const whenWords =
    "(?:last|this|in|on|ago|a|an|one|two|three|\\d+|week|weeks|month|months|year|years|wk|yr|spring|summer|autumn|fall|winter|january|february|march|april|may|june|july|august|september|october|november|december|yesterday|recently|finally|just|weekend|en|el|la|semana|pasada|pasado|mes|año|junio|enero|mayo|im|letzte|letzten|letztes|woche|monat|jahr|juni|mai|juin|janvier|semaine|dernière|dernier|mois|année)";
  return {
    trigger:
      /\b(?:left|quit|resign|laid off|fired|lost my job|sold|gave away|got rid|promoted|now|became|become)\b|dej[eé]|renunci|gekündigt|verlassen|quitt|démission|vend|verkauft|ahora|jetzt|nun|mittlerweile|maintenant|désormais|turned|离职|辞职|被裁|卖|升职|晋升|被提拔|现在|如今|戒|满/u,
    leftJob: [
      /^(?:i\s+)?(?:just\s+|finally\s+)?(?:left|quit|resigned(?:\s+from)?|got\s+laid\s+off\s+from|was\s+laid\s+off\s+from|got\s+fired\s+from|lost\s+my\s+job\s+at)\s+(?:my\s+job\s+(?:at|with)\s+)?(.+)$/u,
      /^(?:i\s+)?(?:just\s+|finally\s+)?(?:quit|left)\s+my\s+job()$/u,
      /^(?:ya\s+)?(?:dej[eé]|renunci[eé]\s+a|me\s+fui\s+de)\s+(.+)$/u,
      /^ich\s+habe\s+(?:bei\s+)?(.+?)\s+(?:gekündigt|verlassen)$/u,
      /^j'ai\s+(?:quitté|démissionné\s+de(?:\s+chez)?)\s+(.+)$/u,
    ],
    works: [
      /^(?:i\s+work|i'm\s+working|i\s+am\s+working)\s+(?:at|for)\s+(.+?)(?:\s+as\s+(?:a|an)\s+.+)?$/u,
      /^trabajo\s+(?:en|para)\s+(.+)$/u,
      /^ich\s+arbeite\s+(?:bei|für)\s+(.+)$/u,
      /^je\s+travaille\s+(?:chez|pour)\s+(.+)$/u,
    ],
    sold: [
      /^(?:i\s+)?(?:just\s+|finally\s+)?(?:sold|gave\s+away|got\s+rid\s+of|traded\s+in)\s+my\s+(.+)$/u,
      /^(?:ya\s+)?vend[ií]\s+mis?\s+(.+)$/u,
      /^ich\s+habe\s+mein(?:en|e)?\s+(.+?)\s+verkauft$/u,
      /^j'ai\s+vendu\s+(?:ma|mon|mes)\s+(.+)$/u,
    ],
    has: [
      /^i\s+(?:have|own|drive|ride)\s+(?:a|an)\s+(.+)$/u,
      /^tengo\s+(?:un|una)\s+(.+)$/u,
      /^ich\s+(?:habe|fahre|besitze)\s+(?:einen|eine|ein)\s+(.+)$/u,
      /^j'ai\s+(?:un|une)\s+(.+)$/u,
    ],
    jobNow: [
      /^(?:i\s+am|i'm|im)\s+(?:now\s+)?(?:a|an)\s+(.+?)(?:\s+now)?$/u,
      /^my\s+[a-z]+\s+is\s+(?:now\s+)?(?:a|an)\s+(.+?)(?:\s+now)?$/u,
      /^(?:i\s+)?(?:became|have\s+become|i've\s+become)\s+(?:a|an)\s+(.+)$/u,
      /^(?:ahora\s+soy\s+(.+)|soy\s+(.+?)\s+ahora)$/u,
      /^ich\s+bin\s+(?:jetzt|nun|mittlerweile|inzwischen)\s+(.+)$/u,
      /^je\s+suis\s+(?:maintenant|désormais)\s+(.+)$/u,
    ],
    job: [
      /^(?:i\s+am|i'm|im)\s+(?:a|an)\s+(.+)$/u,
      /^my\s+[a-z]+\s+is\s+(?:a|an)\s+(.+)$/u,
      /^i\s+work\s+as\s+(?:a|an)\s+(.+)$/u,
      /^soy\s+(.+)$/u,
      /^ich\s+bin\s+(.+)$/u,
      /^je\s+suis\s+(.+)$/u,
    ],
    promoted: [
      /^(?:i\s+)?(?:just\s+)?(?:got|was|have\s+been|i've\s+been)\s+promoted\s+to\s+(?:a\s+|an\s+)?(.+?)(?:\s+at\s+(.+))?$/u,
    ],
    /** "I'm 34" / "just turned 35 (today)": the speaker's age, said again as a birthday. */
    age: /^(?:i'm|i\s+am|im)\s+(\d{1,3})(?:\s+years?\s+old)?$/u,
    turned: /^(?:i\s+)?(?:just\s+)?turned\s+(\d{1,3})(?:\s+today|\s+yesterday)?$/u,
    jobs,
    when: new RegExp(`(?:\\s+${whenWords})+$`, "u"),
    list: /\s(?:and|y|und|et|or)\s|,|、|和|与/u,
  };
}

/** Lower case, no end punctuation or "FYI:" opener; "The user works…" (as extraction writes facts) read as "I work…". */
function plain(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[’‘`]/g, "'")
    .replace(/[\s.!?。！？]+$/u, "")
    .replace(
      /^(?:btw|fyi|update|ps|note|big news|good news|news|so|well|anyway|right now|quick note|heads up|just so you know)\s*[:,\-–!]?\s+/u,
      "",
    )
    .replace(/^(?:其实|顺便说一下|对了|另外)[，,]?/u, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^the user's\s/u, "my ")
    .replace(
      /^the user\s(is|has|works|owns|drives|rides)\b/u,
      (_match, verb: string) => `i ${THIRD_PERSON[verb] ?? verb}`,
    )
    .replace(/^the user\s/u, "i ")
    .replace(/^用户/u, "我");
}

const THIRD_PERSON: Readonly<Record<string, string>> = {
  is: "am",
  has: "have",
  works: "work",
  owns: "own",
  drives: "drive",
  rides: "ride",
};

/** A word part one of the readings needs (checked before any of their patterns is built or run). */
const ENDING_PARTS = [
  "left",
  "quit",
  "resign",
  "laid",
  "fired",
  "lost",
  "sold",
  "gave",
  "got rid",
  "traded",
  "promot",
  "now",
  "became",
  "become",
  "dej",
  "renunci",
  "gekündigt",
  "verlassen",
  "quitt",
  "démission",
  "vend",
  "verkauft",
  "ahora",
  "jetzt",
  "nun",
  "mittlerweile",
  "inzwischen",
  "maintenant",
  "désormais",
  "离职",
  "辞职",
  "被裁",
  "卖",
  "升职",
  "晋升",
  "被提拔",
  "现在",
  "如今",
  "戒",
  "turned",
  "满",
];

function mayEnd(text: string): boolean {
  const lower = text.toLowerCase();
  return ENDING_PARTS.some((part) => lower.includes(part));
}

/**
 * Words that find the stored statement a reading above ends: "left Acme" shares no word with "I
 * work at Acme", "I am a teacher now" none with "I am a nurse" (neighbours.ts adds these to the search).
 */
export function endedStateWords(text: string): string {
  if (!mayEnd(text)) return "";
  const said = plain(text);
  const shape = endingShapes();
  const found: string[] = [];
  if (firstGroup(shape.leftJob, said) !== undefined || /离职|辞职|被裁/u.test(said))
    found.push("work works job employed 工作 上班 trabajo arbeite travaille");
  if (firstGroup(shape.sold, said) !== undefined || /卖/u.test(said))
    found.push("have own drive 有 开 tengo habe fahre");
  if (/戒烟/u.test(said)) found.push("抽烟 吸烟");
  if (/戒酒/u.test(said)) found.push("喝酒");
  if (
    firstGroup(shape.jobNow, said) !== undefined ||
    shape.promoted[0]?.test(said) ||
    /(?:现在|如今)是|升职|晋升|被提拔/u.test(said)
  )
    found.push([...shape.jobs].join(" "));
  // "just turned 35" finds "I'm 34", "满35岁" finds "34岁".
  const turned = shape.turned.exec(said)?.[1] ?? /满(\d{1,3})岁/u.exec(said)?.[1];
  if (turned !== undefined) found.push(`${Number(turned) - 1} ${Number(turned) - 1}岁`);
  return found.join(" ");
}

function firstGroup(patterns: readonly RegExp[], text: string): string | undefined {
  for (const pattern of patterns) {
    const match = pattern.exec(text);
    if (match) return (match.slice(1).find((group) => group !== undefined) ?? "").trim();
  }
  return undefined;
}

/** A role such as "senior engineer": at most three words, the last a job. */
function role(phrase: string | undefined, jobs: ReadonlySet<string>): string | undefined {
  if (phrase === undefined) return undefined;
  const words = phrase.split(" ");
  return words.length <= 3 && jobs.has(words.at(-1) ?? "") ? phrase : undefined;
}

function endedInChinese(said: string, stored: string): string | undefined {
  const time =
    /^我|已经|刚刚|刚|上个月|上周|去年|今年|前年|\d+月|[一二三四五六七八九十两\d]+(?:个)?(?:月|年|周|天)(?:前)?|了$/gu;
  const rest = said.replace(time, "");
  // 我在腾讯工作, 我在腾讯做产品经理: where the user works (and as what).
  const employer = /^我在(.{1,12}?)(?:工作|上班|做.{1,8}|当.{1,8})$/u.exec(stored)?.[1];
  const left = /^(?:从(.{1,12}?))?(?:离职|辞职|被裁员?)$/u.exec(rest);
  if (employer !== undefined && left && (left[1] === undefined || left[1] === employer))
    return "the user left the job the stored statement names";
  const habit = /^戒(烟|酒)$/u.exec(rest)?.[1];
  const smoked = /^我(?:每天)?(?:抽|吸|喝)(?:[一二三四五六七八九十两\d]+(?:包|根|杯|瓶))?(烟|酒)$/u.exec(
    stored,
  )?.[1];
  if (habit !== undefined && habit === smoked) return "the user quit the habit the stored statement names";
  const owned = /^我(?:有|开)(?:一(?:辆|台|只|个|部))?(.{1,10})$/u.exec(stored)?.[1];
  const sold = /^把(?:我的)?(.{1,10}?)卖(?:掉)?$/u.exec(rest)?.[1];
  if (owned !== undefined && sold !== undefined && owned.endsWith(sold))
    return "the user sold what the stored statement says they had";
  const oldRole = /^我是(.{1,8})$/u.exec(stored)?.[1];
  const newRole =
    /^(?:现在|如今)是(.{1,8})$/u.exec(rest)?.[1] ??
    /^(?:升职|晋升|被提拔)(?:为|成|到)(.{1,8})$/u.exec(rest)?.[1];
  const jobs = endingShapes().jobs;
  const isJob = (value: string | undefined) =>
    value !== undefined && [...jobs].some((job) => HAN.test(job) && value.endsWith(job));
  if (isJob(oldRole) && isJob(newRole) && oldRole !== newRole) return "the user's stated role changed";
  // 我在腾讯做初级工程师 / 我在腾讯升职成高级工程师了: the same employer, a new role.
  const heldRole = /^我在(.{1,12}?)(?:做|当)(.{1,8})$/u.exec(stored);
  const raised = /^在(.{1,12}?)(?:升职|晋升|被提拔)(?:为|成|到)(.{1,8})$/u.exec(rest);
  if (
    heldRole &&
    raised &&
    heldRole[1] === raised[1] &&
    isJob(heldRole[2]) &&
    isJob(raised[2]) &&
    heldRole[2] !== raised[2]
  )
    return "the user was promoted from the stored role";
  // 我今年34岁 / 我今天满35岁了: the speaker's age, a year on.
  const age = /^我(?:今年)?(\d{1,3})岁$/u.exec(stored)?.[1];
  const turned = /^(?:今天)?满(\d{1,3})岁$/u.exec(rest)?.[1];
  if (age !== undefined && turned !== undefined && Number(turned) === Number(age) + 1)
    return "the user's age went up by a birthday";
  return undefined;
}

export function jobOrThingEnded(candidate: string, existing: string): string | undefined {
  if (!mayEnd(candidate)) return undefined;
  const said = plain(candidate);
  const stored = plain(existing);
  const shape = endingShapes();
  if (!shape.trigger.test(said) || shape.list.test(stored) || shape.list.test(said)) return undefined;
  if (/[?？]|\b(?:if|might|may|want|will|would|should)\b|吗|如果|可能|想/u.test(said)) return undefined;
  if (STARTS_HAN.test(said)) return STARTS_HAN.test(stored) ? endedInChinese(said, stored) : undefined;
  const words = (text: string) => text.replace(shape.when, "").split(" ");
  const sameWords = (small: string, large: string) => {
    const have = new Set(words(large));
    const wanted = words(small).filter((word) => word !== "");
    return wanted.length > 0 && wanted.every((word) => have.has(word));
  };
  const employer = firstGroup(shape.works, stored);
  const left = firstGroup(shape.leftJob, said);
  if (employer !== undefined && left !== undefined) {
    // "quit my job" names no employer; "left Acme in June" names the stored one; "left work at 6pm" neither.
    if (left === "" || (!/\d/.test(left) && sameWords(left, employer)))
      return "the user left the job the stored statement names";
  }
  const owned = firstGroup(shape.has, stored);
  const sold = firstGroup(shape.sold, said);
  if (owned !== undefined && sold !== undefined && !/\d/.test(owned + sold)) {
    // "sold my Civic" ends "I drive a Honda Civic": the thing sold is the thing held, at most its maker's name in front.
    const soldWords = words(sold);
    const ownedWords = owned.split(" ");
    const tail = ownedWords.slice(-soldWords.length).join(" ");
    if (tail === soldWords.join(" ") && ownedWords.length - soldWords.length <= 1)
      return "the user sold what the stored statement says they had";
  }
  const jobs = shape.jobs;
  const newRole = role(firstGroup(shape.jobNow, said), jobs);
  const hasNow =
    /\b(?:now|became|become)\b|ahora|jetzt|nun|mittlerweile|inzwischen|maintenant|désormais/u.test(said);
  const oldRole = role(firstGroup(shape.job, stored), jobs);
  // "my wife is a nurse" / "my wife is a doctor now": the same owner and kin word on both sides, or both "I".
  const owner = (text: string) => /^my\s+([a-z]+)\s+is\b/u.exec(text)?.[1] ?? "i";
  if (
    hasNow &&
    newRole !== undefined &&
    oldRole !== undefined &&
    newRole !== oldRole &&
    owner(said) === owner(stored)
  )
    return "the user's stated role changed";
  const promotion = shape.promoted[0]?.exec(said);
  const promotedTo = role(promotion?.[1], jobs);
  if (promotion && promotedTo !== undefined) {
    const atWork = /^i\s+work\s+(?:at|for)\s+(.+?)\s+as\s+(?:a|an)\s+(.+)$/u.exec(stored);
    // "Right now I work as a junior designer at Figma": the role first, then the employer.
    const asRole = /^(?:right now\s+)?i\s+work\s+as\s+(?:a|an)\s+(.+?)\s+(?:at|for)\s+(.+)$/u.exec(stored);
    const roleOnly = role(firstGroup(shape.job, stored), jobs);
    const storedRole = role(atWork?.[2], jobs) ?? role(asRole?.[1], jobs) ?? roleOnly;
    const storedEmployer = atWork?.[1] ?? asRole?.[2];
    const sameEmployer =
      storedEmployer === undefined ? true : promotion[2] !== undefined && promotion[2] === storedEmployer;
    if (storedRole !== undefined && storedRole !== promotedTo && sameEmployer)
      return "the user was promoted from the stored role";
  }
  // "I'm 34" / "just turned 35": a birthday, one year on (another number is a conflict for the user).
  const age = shape.age.exec(stored)?.[1];
  const turned = shape.turned.exec(said)?.[1];
  if (age !== undefined && turned !== undefined && Number(turned) === Number(age) + 1)
    return "the user's age went up by a birthday";
  return undefined;
}
