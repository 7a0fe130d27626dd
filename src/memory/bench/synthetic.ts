import { mulberry32 } from "../text/mulberry32.js";

/**
 * Deterministic synthetic memories for the scale benchmark: varied fact sentences of the kinds a
 * personal agent stores (people, places, preferences, work, health, plans), built from word lists
 * with a seeded PRNG so every run measures the same corpus.
 */

const PEOPLE =
  `Maria Ahmed Chen Olga Tomas Priya Kenji Lucia Omar Ines Felix Hana Diego Amara Jonas Leila Mateo
Sofia Ravi Nadia Pavel Yuki Carmen Elias Zara Bruno Mira Theo Alma Ivan Noor Sven Rosa Kofi Lena Arjun Eva Marco
Aiko Dmitri Beatriz Hugo Selin Rahul Greta Jamal Clara Tariq Freya Luca`.split(/\s+/);
const RELATIONS =
  `sister brother mother father cousin friend colleague manager neighbor aunt uncle daughter son partner
wife husband roommate mentor dentist doctor landlord teacher coach`.split(/\s+/);
const CITIES = `Lisbon Berlin Osaka Toronto Nairobi Lima Oslo Porto Seoul Denver Austin Krakow Tbilisi Hanoi
Melbourne Valencia Dublin Chicago Montreal Istanbul Marseille Bogota Accra Tallinn Zurich Kyoto Boston Seattle
Madrid Athens Prague Vienna Helsinki Cairo Santiago Auckland`.split(/\s+/);
const FOODS = `sushi ramen tacos paella lasagna curry falafel dumplings pho risotto ceviche kimchi croissants
pierogi hummus burritos goulash shakshuka biryani gnocchi empanadas tiramisu baklava mochi`.split(/\s+/);
const HOBBIES = `bouldering,pottery,chess,birdwatching,sailing,knitting,photography,gardening,woodworking,
salsa dancing,trail running,calligraphy,beekeeping,astronomy,fencing,origami,kayaking,baking,surfing,
archery,cycling,skiing,journaling`.split(/,\s*/);
const LANGUAGES =
  `TypeScript Rust Go Python Kotlin Haskell Elixir Swift Zig OCaml Scala Clojure Ruby Julia`.split(/\s+/);
const TOOLS =
  `Neovim Emacs VSCode tmux Docker Kubernetes Postgres SQLite Redis Terraform Ansible Grafana Figma
Obsidian Notion Linear Jira Git Bazel Nix`.split(/\s+/);
const ORGS = `Acme Globex Initech Umbrella Stark Wayne Hooli Vandelay Soylent Cyberdyne Tyrell Wonka Gringotts
Oscorp Aperture Monarch Dunder Massive Dynamic`.split(/\s+/);
const ROLES = `nurse architect carpenter pilot chef lawyer teacher engineer designer journalist pharmacist
veterinarian electrician translator accountant researcher firefighter librarian`.split(/\s+/);
const CONDITIONS = `peanut allergy,lactose intolerance,migraines,asthma,back pain,insomnia,hay fever,
gluten sensitivity,knee injury,eczema,tinnitus,high blood pressure`.split(/,\s*/);
const MONTHS = `January February March April May June July August September October November December`.split(
  /\s+/,
);
const WEEKDAYS = `Monday Tuesday Wednesday Thursday Friday Saturday Sunday`.split(/\s+/);
const ADJECTIVES =
  `quiet spicy cheap expensive early late remote noisy vegetarian strict relaxed detailed short long
formal casual bright dark minimalist colorful`.split(/\s+/);

/** A seeded generator of numbers in [0, 1). */
export function createRandom(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() / 4294967296;
}

type Pick = <T>(list: readonly T[]) => T;

const SYLLABLES =
  `ka lo mi ru sen ta vo ri ne shi ba do fe gu hi ja ko lu ma no pe qui ra so tu ve wa xi yo za
bri cla dra fro gla pla tri sta vel mor lin dor kas pen tor zu`.split(/\s+/);
/** Size of the coined vocabulary: names of products, places, pets, projects, people's surnames. */
const COINED = 50_000;

/** The index-th coined word, e.g. "Kalomi": deterministic, distinct for distinct indexes. */
function coinedWord(index: number): string {
  let word = "";
  let rest = index;
  do {
    word += SYLLABLES[rest % SYLLABLES.length];
    rest = Math.floor(rest / SYLLABLES.length);
  } while (rest > 0);
  word += SYLLABLES[(index * 7) % SYLLABLES.length];
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** Zipf-like draw: a few coined words are frequent, most are rare, as in real text. */
function coined(random: () => number): string {
  return coinedWord(Math.floor(COINED * random() ** 3));
}

const TEMPLATES: readonly ((pick: Pick, n: () => number, c: () => string) => string)[] = [
  (p, _n, c) =>
    `The user's ${p(RELATIONS)} ${p(PEOPLE)} ${c()} adopted a dog named ${c()} from a shelter in ${p(CITIES)}.`,
  (_p, n, c) => `The user bought a ${c()} ${c()} for ${n() * 25} dollars and returned it after ${n()} weeks.`,
  (p, _n, c) =>
    `The user's favorite podcast is ${c()} ${c()}, mostly about ${p(HOBBIES)} and ${p(LANGUAGES)}.`,
  (p, _n, c) => `The user is writing a novel called ${c()} set in ${p(CITIES)} during ${p(MONTHS)}.`,
  (p, _n, c) =>
    `The user's project ${c()} uses ${p(LANGUAGES)} with ${p(TOOLS)} and deploys to ${c()} servers.`,
  (p, n) => `The user's ${p(RELATIONS)} ${p(PEOPLE)} moved to ${p(CITIES)} in ${p(MONTHS)} ${2015 + n()}.`,
  (p) => `The user prefers ${p(FOODS)} over ${p(FOODS)} and likes ${p(ADJECTIVES)} restaurants.`,
  (p) => `The user works as a ${p(ROLES)} at ${p(ORGS)} and commutes on ${p(WEEKDAYS)}s.`,
  (p) => `The user is learning ${p(LANGUAGES)} and uses ${p(TOOLS)} every day.`,
  (p) => `The user's ${p(RELATIONS)} ${p(PEOPLE)} has ${p(CONDITIONS)} and avoids ${p(FOODS)}.`,
  (p, n) => `The user plans a trip to ${p(CITIES)} in ${p(MONTHS)} to try ${p(HOBBIES)} for ${n()} days.`,
  (p) => `The user started ${p(HOBBIES)} with ${p(PEOPLE)} on ${p(WEEKDAYS)} evenings.`,
  (p) => `The user decided to migrate the ${p(ORGS)} project from ${p(TOOLS)} to ${p(TOOLS)}.`,
  (p) => `The user dislikes ${p(ADJECTIVES)} meetings and wants ${p(ADJECTIVES)} code reviews.`,
  (p, n) =>
    `The user's ${p(RELATIONS)} ${p(PEOPLE)} turns ${n() + 20} in ${p(MONTHS)}; the user wants to gift a ${p(HOBBIES)} lesson.`,
  (p) => `The user has ${p(CONDITIONS)} and takes medication every ${p(WEEKDAYS)} morning.`,
  (p) => `${p(PEOPLE)} recommended the ${p(FOODS)} place near the station in ${p(CITIES)}.`,
];

const QUESTIONS: readonly ((pick: Pick, c: () => string) => string)[] = [
  (_p, c) => `What is the name of the dog adopted by ${c()}?`,
  (_p, c) => `How much did the ${c()} cost?`,
  (p, c) => `Which ${p(LANGUAGES)} project is ${c()}?`,
  (p) => `Where did the user's ${p(RELATIONS)} ${p(PEOPLE)} move?`,
  (p) => `Does the user like ${p(FOODS)}?`,
  (p) => `Where does the user work as a ${p(ROLES)}?`,
  (p) => `Which editor or tool does the user use with ${p(LANGUAGES)}?`,
  (p) => `What allergy does ${p(PEOPLE)} have?`,
  (p) => `When is the trip to ${p(CITIES)}?`,
  (p) => `Who does the user do ${p(HOBBIES)} with?`,
  (p) => `Why migrate away from ${p(TOOLS)}?`,
  (p) => `What medication does the user take for ${p(CONDITIONS)}?`,
];

export function syntheticMemories(count: number, seed = 42): string[] {
  const memories: string[] = [];
  for (const memory of syntheticMemoryStream(seed)) {
    if (memories.length >= count) break;
    memories.push(memory);
  }
  return memories;
}

/**
 * The same memories as syntheticMemories(), one at a time and without end: a million of them held
 * at once would be most of the benchmark's own memory, and would make V8 let its heap grow in
 * proportion (measured: peak RSS 932 MB at 1,000,000 with the array, the engine's share far less).
 */
export function* syntheticMemoryStream(seed = 42): Generator<string, never> {
  const random = createRandom(seed);
  const pick: Pick = (list) => list[Math.floor(random() * list.length)] as (typeof list)[number];
  const number = () => 1 + Math.floor(random() * 20);
  const word = () => coined(random);
  for (;;) yield pick(TEMPLATES)(pick, number, word);
}

export function syntheticQueries(count: number, seed = 7): string[] {
  const random = createRandom(seed);
  const pick: Pick = (list) => list[Math.floor(random() * list.length)] as (typeof list)[number];
  const queries: string[] = [];
  const word = () => coined(random);
  for (let index = 0; index < count; index++) queries.push(pick(QUESTIONS)(pick, word));
  return queries;
}
