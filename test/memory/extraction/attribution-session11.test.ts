import { describe, expect, it } from "vitest";
import { makeHarness, ScriptedModel } from "../store/harness.js";

// Session 11, held out (written before running): words the user did not state about themselves —
// quoted or reported speech, hypotheticals and wishes, the assistant's suggestions and guesses,
// pasted or forwarded text, another member of a group chat — through the real extraction runner with a
// scripted model that claims each is "user-stated" and critical, and with an honest one that marks it
// "inferred". Neither may store it as the user's own, nor let it supersede what the user did say.

interface Claim {
  name: string;
  excerpt: string;
  text: string;
  quote: string;
  kind?: "fact" | "constraint";
}

const CLAIMS: readonly Claim[] = [
  {
    name: "reported advice (my mom says I should move)",
    excerpt: "user: my mom says I should move to Lyon, she misses me",
    text: "The user lives in Lyon",
    quote: "I should move to Lyon",
  },
  {
    name: "a hypothetical (if I lived in Rome)",
    excerpt: "user: if I lived in Rome I'd cycle to work every day, right?",
    text: "The user lives in Rome",
    quote: "I lived in Rome",
  },
  {
    name: "a wish (I wish I lived in Rome)",
    excerpt: "user: honestly I wish I lived in Rome",
    text: "The user lives in Rome",
    quote: "I lived in Rome",
  },
  {
    name: "imagine I was a doctor",
    excerpt: "user: imagine I was a doctor, what would my salary be?",
    text: "The user is a doctor",
    quote: "I was a doctor",
  },
  {
    name: "the assistant's suggestion",
    excerpt:
      "user: where should I go next year?\nassistant: You should move to Lisbon, you would love it there.",
    text: "The user lives in Lisbon",
    quote: "You should move to Lisbon",
  },
  {
    name: "the assistant's guess",
    excerpt: "assistant: Based on your time zone, you're probably in Berlin.\nuser: haha",
    text: "The user lives in Berlin",
    quote: "you're probably in Berlin",
  },
  {
    name: "a bio pasted from a profile",
    excerpt:
      "user: shorten this bio I pasted from LinkedIn: 'Maria lives in Madrid and works at SAP as a designer'",
    text: "The user lives in Madrid",
    quote: "lives in Madrid and works at SAP",
  },
  {
    name: "another member of a family chat",
    excerpt: "user: from the family chat:\n  Anna: I moved to Madrid last week!\n  what do I reply?",
    text: "The user moved to Madrid last week",
    quote: "I moved to Madrid last week",
  },
  {
    name: "someone's words in quotation marks",
    excerpt: 'user: my boss told me "you live in Madrid now, right?" and I just laughed',
    text: "The user lives in Madrid",
    quote: "you live in Madrid now",
  },
  {
    name: "a friend's own allergy, told by the user",
    excerpt: "user: Tom said: I am allergic to peanuts. So no satay at the party.",
    text: "The user is allergic to peanuts",
    quote: "I am allergic to peanuts",
    kind: "constraint",
  },
  {
    name: "a question someone asked",
    excerpt: "user: my friend asked whether I live in Madrid, weird question",
    text: "The user lives in Madrid",
    quote: "I live in Madrid",
  },
  {
    name: "Spanish reported advice",
    excerpt: "user: mi madre dice que debería mudarme a Madrid",
    text: "El usuario vive en Madrid",
    quote: "mudarme a Madrid",
  },
  {
    name: "German hypothetical",
    excerpt: "user: Wenn ich in Rom wohnen würde, würde ich jeden Tag Rad fahren",
    text: "Der Nutzer wohnt in Rom",
    quote: "ich in Rom wohnen",
  },
  {
    name: "French quoted sister",
    excerpt: "user: ma sœur m'a écrit : « j'habite à Madrid maintenant »",
    text: "L'utilisateur habite à Madrid",
    quote: "j'habite à Madrid maintenant",
  },
  {
    name: "Chinese wish",
    excerpt: "user: 如果我住在罗马就好了",
    text: "用户住在罗马",
    quote: "我住在罗马",
  },
];

function scripted(claim: Claim, evidence: "user-stated" | "inferred"): ScriptedModel {
  return new ScriptedModel(() => ({
    ok: true,
    text: JSON.stringify({
      memories: [
        {
          kind: claim.kind ?? "fact",
          text: claim.text,
          evidence,
          importance: "critical",
          sourceQuote: claim.quote,
        },
      ],
    }),
  }));
}

async function extract(claim: Claim, evidence: "user-stated" | "inferred", storedFirst?: string) {
  const harness = makeHarness({ model: scripted(claim, evidence) });
  if (storedFirst !== undefined) {
    await harness.service.remember({
      userKey: "owner",
      kind: "fact",
      importance: "normal",
      text: storedFirst,
      evidence: "user-stated",
    });
    harness.clock.advanceDays(1);
  }
  harness.service.enqueueExtraction({
    userKey: "owner",
    sessionId: "s1",
    messageIds: [1, 2],
    transcriptExcerpt: claim.excerpt,
  });
  const summary = await harness.service.runPendingExtractions();
  expect(summary.done + summary.failed).toBe(1);
  return harness.service.list({ userKey: "owner" });
}

describe("attribution through the extraction runner (session 11, held out)", () => {
  it.each(CLAIMS.map((claim) => [claim.name, claim] as const))(
    "%s: a lying model's 'user-stated, critical' is not stored as the user's own",
    async (_name, claim) => {
      for (const memory of await extract(claim, "user-stated")) {
        expect(memory.evidence).not.toBe("user-stated");
        expect(memory.importance).not.toBe("critical");
      }
    },
  );

  it.each(CLAIMS.map((claim) => [claim.name, claim] as const))(
    "%s: lying or honest, it never supersedes or confirms what the user said",
    async (_name, claim) => {
      const stored = /[\u4e00-\u9fff]/u.test(claim.text)
        ? "用户住在巴黎"
        : claim.kind === "constraint"
          ? "The user is not allergic to anything"
          : /doctor/.test(claim.text)
            ? "The user is a nurse"
            : "The user lives in Paris";
      for (const evidence of ["user-stated", "inferred"] as const) {
        const current = await extract(claim, evidence, stored);
        const mine = current.find((memory) => memory.text === stored);
        expect(mine, `${evidence}: ${current.map((memory) => memory.text).join(" | ")}`).toBeDefined();
        expect(mine?.evidence).toBe("user-stated");
        expect(mine?.confirmations ?? 0).toBe(0);
      }
    },
  );

  it("the user's own plain statement is still user-stated and updates their fact", async () => {
    const claim: Claim = {
      name: "plain",
      excerpt: "user: I moved to Lyon last month.\nassistant: Noted.",
      text: "The user moved to Lyon last month",
      quote: "I moved to Lyon last month",
    };
    const current = await extract(claim, "user-stated", "The user lives in Paris");
    expect(current.map((memory) => [memory.text, memory.evidence])).toEqual([
      ["The user moved to Lyon last month", "user-stated"],
    ]);
  });
});
