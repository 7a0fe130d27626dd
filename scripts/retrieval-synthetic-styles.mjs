// A second synthetic corpus for held-out retrieval checks (session 12), in a style unlike
// scripts/retrieval-synthetic.mjs (coined Zipf words, short turns) and unlike the dev sets:
// real English words drawn uniformly from small topic lists (a flat vocabulary: every word is
// about as common as the next), long turns (40–160 words, as chat with an assistant or a long
// story), code tokens that a plain tokenizer merges (C++, C#, .NET, Node.js), whole conversations
// in Chinese or in Spanish/German mixed with English, and four question forms:
//   1 by name:    "What did <name> say about the <topic>?" — the name is only the speaker field
//                 of the turn that answers (the live store's format), never its text.
//   2 paraphrase: the question shares no content word with the answer's turn (only its speaker's
//                 name or nothing): what lexical retrieval cannot find; both retrievers should be
//                 near 0, and Mercury must not be below.
//   3 temporal:   "What did I say last week about <topic>?" and "in <Month> <year>": relative and
//                 absolute time words beside the topic.
//   4 code:       questions naming one of several languages that differ only in punctuation.
// Nothing here is read from the benchmark data; the seed fixes the corpus. Needs `npm run build`.
//   import { styledCorpus } from "./retrieval-synthetic-styles.mjs"; styledCorpus({ seed: 11 })
import { mulberry32 } from "../dist/memory/text/mulberry32.js";

const WORDS = `garden kitchen window river mountain bridge market village station harbor library museum
theater bakery forest desert island valley castle tower cottage meadow orchard vineyard lighthouse
painting guitar violin piano drum camera bicycle kayak tent lantern compass blanket kettle teapot
recipe soup bread cheese pasta salad pepper onion garlic lemon honey butter cookie pancake
meeting deadline invoice budget contract client manager report spreadsheet presentation interview
holiday vacation flight ticket passport luggage hotel beach sunset weather storm snow rain wind
doctor dentist nurse hospital medicine vitamin exercise marathon yoga swimming tennis football
neighbor cousin nephew grandmother uncle roommate colleague mentor student teacher coach`.split(/\s+/);
const VERBS = `found bought fixed painted cooked visited planned booked repaired borrowed lent sold
cleaned moved built wrote read watched tried finished started lost returned ordered packed`.split(/\s+/);
const FILLER = `honestly I think that it was kind of nice and we spent a while on it but then again there
were other things going on so it took longer than expected anyway that is how it went and I
would probably do it again if I had the time`.split(/\s+/);
const NAMES = `Caroline Melanie Joanna Nate Evan Sam Priya Tomasz Aiko Rafael Ingrid Kwame`.split(/\s+/);
const MONTHS = `January February March April May June July August September October November December`.split(
  /\s+/,
);
// Languages whose names a plain tokenizer reduces to the same letters ("c", "net", "js").
const CODE = [
  ["C++", "templates and a segfault in the destructor"],
  ["C#", "async tasks and the garbage collector"],
  ["C", "pointers and a buffer overflow"],
  [".NET", "the runtime upgrade and assembly loading"],
  ["Node.js", "the event loop and a memory leak"],
  ["F#", "pattern matching and type providers"],
];
// Fact and paraphrase: the question names the same thing in other words (no shared content word).
const PARAPHRASES = [
  ["I adopted a puppy from the shelter", "Which animal did I bring home to look after?"],
  ["my car broke down on the motorway", "What trouble happened with the vehicle during the drive?"],
  ["I quit smoking after twenty years", "What habit did I give up?"],
  ["we are expecting twins in spring", "How many babies are on the way?"],
  ["my landlord raised the rent again", "Did the apartment get pricier?"],
  ["I sprained my ankle while jogging", "How did I get hurt running?"],
];
// Chinese: the fact and its question share a topic word, written without spaces.
const CHINESE = [
  ["我上个月在北京买了一辆自行车", "我在北京买了什么"],
  ["我妹妹下周要去上海参加婚礼", "谁要去上海参加婚礼"],
  ["我们公司新开了一家咖啡店", "公司开了什么店"],
  ["我最近在学习弹钢琴", "我在学习什么乐器钢琴"],
  ["昨天的会议讨论了明年的预算", "会议讨论了什么预算"],
  ["我的猫生病了所以去了医院", "猫为什么去医院"],
];
const CHINESE_FILLER = `今天天气很好我们聊了很多事情然后一起吃了晚饭大家都很开心`;
const MIXED = `pues la verdad es que también hablamos de otras cosas und dann haben wir noch lange über alles
geredet mais bon c'est la vie`.split(/\s+/);

function random(seed) {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}

/** Conversation styles, one per conversation in turn. */
const STYLES = ["people", "assistant", "chinese", "mixed"];

export function styledCorpus({ seed = 11, conversations = 8, sessions = 12, turns = 14, facts = 36 } = {}) {
  const next = random(seed);
  const pick = (list) => list[Math.floor(next() * list.length)];
  const words = (count, list = WORDS) =>
    Array.from({ length: count }, () => (next() < 0.55 ? pick(FILLER) : pick(list))).join(" ");
  const corpus = [];
  for (let number = 0; number < conversations; number++) {
    const style = STYLES[number % STYLES.length];
    const first = NAMES[(number * 2) % NAMES.length];
    const speakers =
      style === "assistant" ? ["User", "Assistant"] : [first, NAMES[(number * 2 + 1) % NAMES.length]];
    const conversation = { speaker_a: speakers[0], speaker_b: speakers[1] };
    const lists = [];
    // Sessions a week apart from a random start: "last week" is the session before the last.
    const start = Date.UTC(
      2022 + Math.floor(next() * 2),
      Math.floor(next() * 12),
      1 + Math.floor(next() * 20),
    );
    const dates = [];
    for (let session = 1; session <= sessions; session++) {
      const date = new Date(start + (session - 1) * 7 * 86_400_000);
      dates.push(date);
      conversation[`session_${session}_date_time`] =
        `${1 + Math.floor(next() * 11)}:${String(Math.floor(next() * 60)).padStart(2, "0")} pm on ${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}, ${date.getUTCFullYear()}`;
      const list = Array.from({ length: turns }, (_, turn) => {
        const long =
          style === "assistant" && turn % 2 === 1
            ? 80 + Math.floor(next() * 80)
            : 40 + Math.floor(next() * 60);
        const text =
          style === "chinese"
            ? `${CHINESE_FILLER.slice(Math.floor(next() * 10), 12 + Math.floor(next() * 16))}${pick(WORDS)}。`
            : style === "mixed"
              ? `${words(Math.floor(long / 2))} ${words(Math.floor(long / 4), MIXED)}.`
              : `${words(long)}.`;
        return { speaker: speakers[turn % 2], dia_id: `D${session}:${turn + 1}`, text };
      });
      conversation[`session_${session}`] = list;
      lists.push(list);
    }
    const qa = [];
    const used = new Set();
    for (let fact = 0; fact < facts; fact++) {
      let session;
      let turn;
      do {
        session = Math.floor(next() * sessions);
        turn = Math.floor(next() * turns);
      } while (used.has(`${session}:${turn}`));
      used.add(`${session}:${turn}`);
      const said = lists[session][turn];
      const person = said.speaker === "User" ? "I" : said.speaker === "Assistant" ? "you" : said.speaker;
      const kind = 1 + (fact % 4);
      let question;
      if (style === "chinese") {
        const [statement, asked] = pick(CHINESE);
        said.text = `${CHINESE_FILLER.slice(0, 6)}${statement}。${said.text}`;
        question = asked;
      } else if (kind === 1) {
        const topic = `${pick(WORDS)} ${pick(WORDS)}`;
        said.text = `${words(10)} the ${topic} ${pick(VERBS)} ${words(20)}`;
        // The topic comes up elsewhere, said by either speaker, without being the fact.
        for (let repeat = 0; repeat < 2; repeat++) {
          const other = pick(pick(lists));
          if (other !== said) other.text = `${other.text} ${topic} ${words(4)}.`;
        }
        question = `What did ${person === "I" ? "I" : person} say about the ${topic}?`;
      } else if (kind === 2) {
        const [statement, asked] = pick(PARAPHRASES);
        said.text = `${words(12)} ${statement} ${words(25)}`;
        question = asked;
      } else if (kind === 3) {
        const topic = pick(WORDS);
        said.text = `${words(8)} the ${topic} ${pick(VERBS)} ${words(30)}`;
        const relative = session === sessions - 2 && next() < 0.7;
        const when = relative
          ? "last week"
          : `in ${MONTHS[dates[session].getUTCMonth()]} ${dates[session].getUTCFullYear()}`;
        question = `What did ${person === "I" ? "I" : person} say ${when} about the ${topic}?`;
      } else {
        const [language, detail] = pick(CODE);
        said.text = `${words(6)} in ${language} I hit ${detail} ${words(20)}`;
        // Another language's turn with the same detail words nearby, so only the name tells them apart.
        const [otherLanguage] = pick(CODE.filter(([name]) => name !== language));
        const other = pick(pick(lists));
        if (other !== said) other.text = `${other.text} in ${otherLanguage} ${detail}.`;
        question = `What went wrong with ${language} and ${detail.split(" ").slice(-2).join(" ")}?`;
      }
      qa.push({ question, answer: "", evidence: [said.dia_id], category: style === "chinese" ? 1 : kind });
    }
    corpus.push({ sample_id: `styled-${style}-${seed}-${number}`, conversation, qa });
  }
  return corpus;
}
