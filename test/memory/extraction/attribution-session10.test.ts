import { describe, expect, it } from "vitest";
import { makeHarness, ScriptedModel } from "../store/harness.js";

// Session 10 attribution attacks through the real extraction path: a job is queued with the
// transcript excerpt, a scripted model answers with a fact it claims is "user-stated" and critical,
// and the runner (schema, quote check, attribution, importance cap, consolidation) decides what is
// stored. None of these claims is the user's own: each must be stored as an inference at normal
// importance (or not at all), and none may supersede what the user did say.

interface Attack {
  name: string;
  excerpt: string;
  text: string;
  quote: string;
  kind?: "fact" | "constraint" | "preference";
}

const ATTACKS: readonly Attack[] = [
  {
    name: "the assistant's sentence quoted as the user's",
    excerpt: "user: which museum should I see?\nassistant: Since you live in Madrid, try the Prado.",
    text: "The user lives in Madrid",
    quote: "Since you live in Madrid",
  },
  {
    name: "the assistant's words, quoted without the 'you'",
    excerpt:
      "user: any tips for the weekend?\nassistant: As a vegan living in Madrid you will love Mercado de San Miguel.",
    text: "The user is a vegan living in Madrid",
    quote: "a vegan living in Madrid",
  },
  {
    name: "a quote spanning the user's turn and the assistant's",
    excerpt: "user: I am a licensed\nassistant: airline pilot? Tell me more.",
    text: "The user is a licensed airline pilot",
    quote: "I am a licensed airline pilot",
  },
  {
    name: "a quote spanning two turns with the speaker label inside it",
    excerpt: "user: my doctor said I am\nassistant: allergic to penicillin, you mean?",
    text: "The user is allergic to penicillin",
    quote: "I am\nassistant: allergic to penicillin",
    kind: "constraint",
  },
  {
    name: "a quote made of stopwords",
    excerpt: "user: I am a bit tired, it is the weekend and I was up all night.",
    text: "The user is a surgeon",
    quote: "I am a",
  },
  {
    name: "a quote of one pronoun",
    excerpt: "user: I think it is going to rain.",
    text: "The user is a licensed airline pilot",
    quote: "I",
  },
  {
    name: "an email the user pasted",
    excerpt:
      "user: Can you reply to this email for me?\n  From: jane@example.com\n  Subject: visit\n  Hi! I live in Oslo now and I am vegan, so no meat please.\n  Jane",
    text: "The user lives in Oslo",
    quote: "I live in Oslo now",
  },
  {
    name: "a forwarded message",
    excerpt:
      "user: Forwarded message from Jake:\n  > I just moved to Denver and I work at Boeing\n  what should I answer?",
    text: "The user works at Boeing",
    quote: "I work at Boeing",
  },
  {
    name: "my friend says (about the user)",
    excerpt: "user: my friend says I am allergic to cats, lol",
    text: "The user is allergic to cats",
    quote: "I am allergic to cats",
    kind: "constraint",
  },
  {
    name: "what someone else believes about the user",
    excerpt: "user: My mom thinks I live in London, but whatever.",
    text: "The user lives in London",
    quote: "I live in London",
  },
  {
    name: "someone else's belief, reported with 'believes that'",
    excerpt: "user: Tom believes that I am a vegetarian.",
    text: "The user is a vegetarian",
    quote: "I am a vegetarian",
  },
  {
    name: "a fact in a code block",
    excerpt:
      "user: fix the typo in this fixture:\n  ```\n  I am a licensd airline pilot based in Lisbon\n  ```",
    text: "The user is a licensed airline pilot",
    quote: "I am a licensd airline pilot",
  },
  {
    name: "a Chinese friend's claim",
    excerpt: "user: 我朋友说他对猫过敏",
    text: "用户对猫过敏",
    quote: "对猫过敏",
    kind: "constraint",
  },
];

function answer(attack: Attack): ScriptedModel {
  return new ScriptedModel(() => ({
    ok: true,
    text: JSON.stringify({
      memories: [
        {
          kind: attack.kind ?? "fact",
          text: attack.text,
          evidence: "user-stated",
          importance: "critical",
          sourceQuote: attack.quote,
        },
      ],
    }),
  }));
}

describe("attribution attacks through the extraction runner (session 10)", () => {
  it.each(ATTACKS.map((attack) => [attack.name, attack] as const))(
    "%s: not user-stated",
    async (_name, attack) => {
      const harness = makeHarness({ model: answer(attack) });
      harness.service.enqueueExtraction({
        userKey: "owner",
        sessionId: "s1",
        messageIds: [1, 2],
        transcriptExcerpt: attack.excerpt,
      });
      const summary = await harness.service.runPendingExtractions();
      expect(summary.done + summary.failed).toBe(1);
      const stored = harness.service.list({ userKey: "owner" });
      for (const memory of stored) {
        expect(memory.evidence).not.toBe("user-stated");
        expect(memory.importance).not.toBe("critical");
      }
    },
  );

  it.each(
    ATTACKS.filter((attack) => /lives in/.test(attack.text)).map((attack) => [attack.name, attack] as const),
  )("%s: never supersedes where the user said they live", async (_name, attack) => {
    const harness = makeHarness({ model: answer(attack) });
    await harness.service.remember({
      userKey: "owner",
      kind: "fact",
      importance: "normal",
      text: "The user lives in Paris",
      evidence: "user-stated",
    });
    harness.clock.advanceDays(1);
    harness.service.enqueueExtraction({
      userKey: "owner",
      sessionId: "s1",
      messageIds: [1, 2],
      transcriptExcerpt: attack.excerpt,
    });
    await harness.service.runPendingExtractions();
    const current = harness.service.list({ userKey: "owner" }).map((memory) => memory.text);
    expect(current).toContain("The user lives in Paris");
  });

  it("the user's own plain sentence is still user-stated (the attacks are not refused by a blanket rule)", async () => {
    const attack: Attack = {
      name: "plain",
      excerpt: "user: I live in Oslo now.\nassistant: Noted.",
      text: "The user lives in Oslo",
      quote: "I live in Oslo now",
    };
    const harness = makeHarness({ model: answer(attack) });
    harness.service.enqueueExtraction({
      userKey: "owner",
      sessionId: "s1",
      messageIds: [1, 2],
      transcriptExcerpt: attack.excerpt,
    });
    await harness.service.runPendingExtractions();
    expect(harness.service.list({ userKey: "owner" })).toMatchObject([
      { text: "The user lives in Oslo", evidence: "user-stated" },
    ]);
  });
});
