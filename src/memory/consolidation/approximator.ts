/**
 * Words that change what a number claims: "over 10 years" is not "10 years", "about 7 hours" is not
 * "exactly 7 hours", "20 to 30 minutes" is not "20 minutes" (the range keeps both numbers). A number
 * carries its approximator as a prefix ("~7", ">10", "<5"), so two statements that differ only
 * there never count as the same claim.
 */
const BEFORE_ONE: Readonly<Record<string, string>> = {
  about: "~",
  around: "~",
  approximately: "~",
  approx: "~",
  roughly: "~",
  nearly: "~",
  almost: "~",
  circa: "~",
  ca: "~",
  some: "~",
  over: ">",
  above: ">",
  beyond: ">",
  under: "<",
  below: "<",
  大约: "~",
  约: "~",
  大概: "~",
  差不多: "~",
  将近: "~",
  近: "~",
  超过: ">",
  多于: ">",
  至少: ">=",
  不到: "<",
  少于: "<",
  最多: "<=",
};

const BEFORE_TWO: Readonly<Record<string, string>> = {
  "more than": ">",
  "greater than": ">",
  "at least": ">=",
  "upwards of": ">",
  "less than": "<",
  "fewer than": "<",
  "at most": "<=",
  "up to": "<=",
  "no more than": "<=",
};

/** The approximator right before the number at `position`, or "". */
export function approximatorBefore(tokens: readonly string[], position: number): string {
  const one = tokens[position - 1] ?? "";
  const two = `${tokens[position - 2] ?? ""} ${one}`;
  const cjkTail = /(大约|约|大概|差不多|将近|近|超过|多于|至少|不到|少于|最多)$/u.exec(one)?.[1];
  return BEFORE_TWO[two] ?? BEFORE_ONE[one] ?? (cjkTail !== undefined ? (BEFORE_ONE[cjkTail] ?? "") : "");
}

/** "10 or so", "10 plus", "10多年", "10左右": an approximator after the number, or "". */
export function approximatorAfter(tokens: readonly string[], position: number): string {
  const next = tokens[position + 1] ?? "";
  if (next === "plus" || /^(?:多|余|几)/u.test(next)) return "+";
  if (next === "or" && tokens[position + 2] === "so") return "~";
  if (/^(?:左右|上下)/u.test(next)) return "~";
  return "";
}

/**
 * Calendar dates written with digits: "3月4日" (month 3, day 4), "2026年", "04/03/2026", "3/4".
 * They become dates (order kept: "3/4" is not "4/3"), and are removed from the text so their digits
 * are not read again as bare numbers.
 */
export function numericDates(text: string, dates: Set<string>): string {
  return text
    .replace(/(\d{1,2})\s*月\s*(\d{1,2})\s*[日号號]/gu, (_whole, month: string, day: string) => {
      dates.add(`${Number(month)}月${Number(day)}日`);
      return " ";
    })
    .replace(/(\d{4})\s*年(?!龄|纪|级)/gu, (_whole, year: string) => {
      dates.add(year);
      return " ";
    })
    .replace(/(\d{1,2})\s*月(?!份?工资|薪)/gu, (_whole, month: string) => {
      dates.add(`${Number(month)}月`);
      return " ";
    })
    .replace(/\b(\d{1,4})\/(\d{1,2})(?:\/(\d{2,4}))?\b/g, (whole: string) => {
      dates.add(whole);
      return " ";
    })
    .replace(/\b(\d{1,2})\.(\d{1,2})\.(\d{2,4})\b/g, (whole: string) => {
      dates.add(whole);
      return " ";
    });
}

/**
 * "N years old" / "N-year-old" is how an age is said: the two words are consumed and the caller adds
 * one attribute term ("age"). "7 months old" stays months.
 */
export function agePhrases(tokens: readonly string[], consumed: Set<number>): boolean {
  let found = false;
  tokens.forEach((token, position) => {
    if (!/^(?:years?|yrs?)$/.test(token) || tokens[position + 1] !== "old") return;
    consumed.add(position);
    consumed.add(position + 1);
    found = true;
  });
  return found;
}
