/**
 * The statement comparison's words in Spanish, German and French (tokens as `tokenize` gives them:
 * lower case, Latin accents folded, "ß" and "œ" kept). English lists are in vocabulary.ts. Lists, no
 * logic: a word here only fills the slot English already has (a person, a number, a weekday, a
 * negation, a one-value attribute), so the same rules read "mi hermana" as they read "my sister".
 */

function table(entries: string): Record<string, string> {
  return Object.fromEntries(
    entries
      .trim()
      .split(/\s+/)
      .map((pair) => pair.split("=") as [string, string]),
  );
}

/**
 * Kinship and roles, to the English canonical person ("+" a plural). Gendered words whose English
 * word is not gendered keep the gender ("prima" is not "primo"): two people, whatever the stem.
 */
export const FOREIGN_PERSONS: Readonly<Record<string, string>> = table(`
  madre=mother mama=mother padre=father papa=father padres=parent+ hermana=sister hermanas=sister+
  hermano=brother hermanos=sibling+ esposa=wife esposo=husband marido=husband hijo=son hija=daughter
  hijos=child+ hijas=daughter+ abuela=grandmother abuelo=grandfather abuelos=grandparent+ tia=aunt
  tio=uncle tias=aunt+ tios=uncle+ primo=cousin:m prima=cousin:f sobrino=nephew sobrina=niece nieto=grandson
  nieta=granddaughter novio=boyfriend novia=girlfriend suegra=mother-in-law suegro=father-in-law
  cuñada=sister-in-law cunada=sister-in-law cuñado=brother-in-law cunado=brother-in-law amigo=friend:m
  amiga=friend:f jefe=boss:m jefa=boss:f companero=colleague:m companera=colleague:f vecino=neighbor:m
  vecina=neighbor:f
  mutter=mother vater=father eltern=parent+ schwester=sister schwestern=sister+ bruder=brother
  geschwister=sibling+ sohn=son sohne=son+ tochter=daughter  kinder=child+ oma=grandmother
  opa=grandfather großmutter=grandmother grossmutter=grandmother großvater=grandfather
  grossvater=grandfather tante=aunt onkel=uncle neffe=nephew nichte=niece enkel=grandson
  enkelin=granddaughter cousine=cousin:f kusine=cousin:f freundin=friend:f kollege=colleague:m
  kollegin=colleague:f  chefin=boss:f nachbar=neighbor:m nachbarin=neighbor:f
  schwiegermutter=mother-in-law schwiegervater=father-in-law schwager=brother-in-law
  schwagerin=sister-in-law ehemann=husband ehefrau=wife verlobte=fiance bruders=brother vaters=father
  sohnes=son
  mere=mother maman=mother pere=father parents=parent+ sœur=sister soeur=sister sœurs=sister+
  soeurs=sister+ frere=brother freres=brother+ mari=husband fils=son enfant=child enfants=child+
  mamie=grandmother  papi=grandfather  oncle=uncle neveu=nephew
  niece=niece ami=friend:m amie=friend:f copain=boyfriend copine=girlfriend collegue=colleague
  voisin=neighbor:m voisine=neighbor:f  patronne=boss:f
`);

/**
 * Words that name a wife, husband or daughter only after a possessive ("meine Frau", "ma femme", "mi
 * mujer", "ma fille"); alone they are "woman", "man", "girl" or a title ("Frau Müller").
 */
export const POSSESSED_PERSONS: Readonly<Record<string, string>> = table(`
  frau=wife mann=husband mujer=wife femme=wife fille=daughter filles=daughter+ freund=friend:m
  mannes=husband chef=boss chefs=boss patron=boss
`);
export const FOREIGN_POSSESSIVES: ReadonlySet<string> = new Set(
  "mi mis tu su sus nuestra nuestro mein meine meinem meinen meiner meines dein deine deines sein seine seines ihr ihre ihres unser unsere unseres ma mon mes ta ton tes sa ses notre nos".split(
    " ",
  ),
);
/** French compounds split by the tokenizer: "grand-mère", "belle-sœur", "petit-fils", "demi-frère". */
export const FRENCH_PERSON_PREFIXES: ReadonlySet<string> = new Set(
  "grand grands belle beau petit petite petits petites demi arriere".split(" "),
);

/** A pronoun opening a sentence names its subject ("Elle est médecin" is not "Il est médecin"). */
export const FOREIGN_PRONOUNS: Readonly<Record<string, string>> = table(`
  il=he elle=she ils=they elles=they er=he ella=she ellas=they ellos=they
`);

/** Number words (not "un/une/ein/uno", which are also articles, nor "once/elf/sept", English too). */
export const FOREIGN_NUMBER_WORDS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(
    table(`
      dos=2 tres=3 cuatro=4 cinco=5 seis=6 siete=7 ocho=8 nueve=9 diez=10 doce=12 veinte=20
      eins=1 zwei=2 drei=3 vier=4 funf=5 sechs=6 sieben=7 acht=8 neun=9 zehn=10 zwolf=12 zwanzig=20
      deux=2 trois=3 quatre=4 cinq=5 huit=8 neuf=9 dix=10 onze=11 douze=12 vingt=20
    `),
  ).map(([word, value]) => [word, Number(value)]),
);

/** Weekdays ("montags", "los lunes": every week, the same day). */
export const FOREIGN_WEEKDAYS: Readonly<Record<string, string>> = table(`
  lunes=monday martes=tuesday miercoles=wednesday jueves=thursday viernes=friday sabado=saturday
  domingo=sunday
  montag=monday montags=monday dienstag=tuesday dienstags=tuesday mittwoch=wednesday mittwochs=wednesday
  donnerstag=thursday donnerstags=thursday freitag=friday freitags=friday samstag=saturday
  samstags=saturday sonntag=sunday sonntags=sunday
  lundi=monday mardi=tuesday mercredi=wednesday jeudi=thursday vendredi=friday samedi=saturday
  dimanche=sunday
`);

/** Months, read as a date only beside a day number ("3 de mayo", "3. Mai", "3 mai"): "mayo" alone is mayonnaise. */
export const FOREIGN_MONTHS: Readonly<Record<string, string>> = table(`
  enero=january febrero=february marzo=march abril=april mayo=may junio=june julio=july agosto=august
  septiembre=september setiembre=september octubre=october noviembre=november diciembre=december
  januar=january februar=february marz=march mai=may juni=june juli=july oktober=october
  dezember=december
  janvier=january fevrier=february mars=march avril=april juin=june juillet=july aout=august
  septembre=september octobre=october novembre=november decembre=december
`);

/** Negations: "nicht", "kein", "nie", "nunca", "jamás", "ne … pas", "jamais", "sans". */
export const FOREIGN_NEGATIONS: ReadonlySet<string> = new Set(
  "nicht kein keine keinen keinem keiner keines nie niemals ohne nunca jamas tampoco pas jamais rien sans".split(
    " ",
  ),
);

/**
 * Verb forms of the one-value attributes "live" and "work" (and moving house, which changes where
 * one lives), so "Vivo en Quito" / "Vivo en Lima" is a possible update as "I live in…" is. Present forms only:
 * "habitait" (lived) folded onto "live" would make "habite" / "habitait" one claim.
 */
export const FOREIGN_RELATIONS: Readonly<Record<string, string>> = Object.fromEntries([
  ...`vivo vives vive vivimos viven vivir mude mudo mudaste mudamos mudaron mudado mudarme mudarse
    wohne wohnst wohnt wohnen lebe lebst lebt umgezogen gezogen
    habite habites habitent habitons habitez habiter demenage demenagee demenages demenagent`
    .split(/\s+/)
    .map((word) => [word, "live"]),
  ...`trabajo trabajas trabaja trabajamos trabajan trabajar arbeite arbeitest arbeitet arbeiten
    travaille travailles travaillent travaillons travaillez travailler`
    .split(/\s+/)
    .map((word) => [word, "work"]),
]);

/**
 * Function words (pronouns, auxiliaries, prepositions, possessives) that carry no content: "Ich bin
 * nach München gezogen" and "Je suis allergique" compare on their content words only. Words that are
 * also English content words ("son", "hat", "die", "war", "como", "mit", "par", "bin") are left out; "ich bin" is read in features.ts.
 */
export const FOREIGN_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  `el la los las un una unos unas del al de le les une du au aux des der das dem den ein eine einen einem
  einer eines
  yo tu mi mis su sus se te nos en y o que con por para es soy eres somos esta estoy estan ha hemos han
  lo muy pero
  ich du er wir ihr bist ist sind seid habe hast haben habt mein meine meinen meinem meiner dein deine
  sein seine ihre  unser unsere nach zu zum zur im um und oder bei von vom auf sehr
  je il elle nous vous ils elles ma mon mes ta ton tes sa ses notre votre leur leurs et ou dans chez avec
  pour sur ai avons avez ont suis est sommes etes sont ne qui ce cet cette ces tres`.split(/\s+/),
);

/**
 * The person a Spanish, German or French token names at `position`, or undefined: "mi hermana" ->
 * "sister", "ma grand-mère" -> "grand-mother", "meine Frau" -> "wife" (but "Frau Müller" is no one).
 */
export function foreignPersonAt(tokens: readonly string[], position: number): string | undefined {
  const token = tokens[position] ?? "";
  const before = tokens[position - 1] ?? "";
  const person =
    FOREIGN_PERSONS[token] ?? (FOREIGN_POSSESSIVES.has(before) ? POSSESSED_PERSONS[token] : undefined);
  if (person === undefined) return undefined;
  return FRENCH_PERSON_PREFIXES.has(before) ? `${before}-${person}` : person;
}

/** A French prefix that belongs to the kinship word after it ("grand" of "grand-mère"). */
export function isFrenchPersonPrefix(tokens: readonly string[], position: number): boolean {
  return (
    FRENCH_PERSON_PREFIXES.has(tokens[position] ?? "") &&
    FOREIGN_PERSONS[tokens[position + 1] ?? ""] !== undefined
  );
}
