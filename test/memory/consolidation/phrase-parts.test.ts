import { describe, expect, it } from "vitest";
import { readChange } from "../../../src/memory/consolidation/change.js";
import { readEnded } from "../../../src/memory/consolidation/ended-phrases.js";

/**
 * The phrase patterns are tried only on text holding one of their word parts (a pattern compiles on
 * its first run, which a short-lived `memory add` pays). Every phrasing below, in capitals, with
 * accents, the Kelvin sign for "K" and in CJK, reads as it did when every pattern was always tried
 * (expected values recorded from the build before that change).
 */
describe("phrase patterns tried only on text holding their words", () => {
  it("reads the same changes of state", () => {
    const cases: [string, string, string][] = [
      ["I SWITCHED to tea", "I drink coffee", "none"],
      ["I changed my mind, I prefer AISLE seats", "I prefer window seats", "update"],
      ["I MOVED to Berlin", "I live in Paris", "update"],
      ["NOWADAYS I live in Berlin", "I live in Paris", "update"],
      ["These days I drink tea", "I drink coffee", "review"],
      ["Ahora vivo en Madrid", "Vivo en Lyon", "update"],
      ["Me mudé a Madrid", "Vivo en Lyon", "update"],
      // German perfect is read verb first (session 10): a move, like "me mudé a" and "j'ai déménagé".
      ["Ich bin nach Berlin UMGEZOGEN", "Ich wohne in Hamburg", "update"],
      ["J'ai DÉMÉNAGÉ à Lyon", "J'habite à Paris", "update"],
      ["Désormais j'habite à Lyon", "J'habite à Paris", "update"],
      ["Actuellement je travaille chez Airbus", "Je travaille chez Renault", "update"],
      ["Jetzt arbeite ich bei Siemens", "Ich arbeite bei Bosch", "update"],
      ["我搬到杭州了", "我住在上海", "update"],
      ["现在我住在杭州", "我住在上海", "update"],
      ["I drink tea instead of coffee", "I drink coffee", "none"],
    ];
    for (const [said, stored, kind] of cases) expect(readChange(said, stored).kind, said).toBe(kind);
  });

  it("reads the same ended states and leaves the same words", () => {
    const cases: [string, boolean, string][] = [
      ["I GAVE UP coffee", true, "I   coffee"],
      ["YA NO como carne", true, "  como carne"],
      ["Nunca más fumo", true, "  fumo"],
      ["No como MÁS carne", true, " como  carne"],
      ["DEJÉ DE trabajar", true, " trabajo "],
      ["He dejado de fumar", true, " fumo "],
      ["Ich rauche NICHT MEHR", true, "Ich rauche  "],
      ["Ich esse \u212Aein Fleisch mehr", true, "Ich esse  ein Fleisch "],
      ["Ich habe AUFGEHÖRT, Fleisch zu essen", true, "Ich  Fleisch esse "],
      ["Je ne mange PLUS de viande", true, "Je  mange  de viande"],
      ["J'AI ARRÊTÉ DE FUMER", true, "Je  FUMe "],
      ["J’ai cessé de fumer", true, "Je  fume "],
      ["I like tea", false, "I like tea"],
    ];
    for (const [text, ended, rest] of cases) expect(readEnded(text), text).toEqual({ ended, text: rest });
  });
});
