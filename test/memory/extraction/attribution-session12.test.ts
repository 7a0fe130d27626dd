import { describe, expect, it } from "vitest";
import { makeHarness, ScriptedModel } from "../store/harness.js";

// Session 12, held out (written before running): a fact about someone else that a lying model hands
// over as the user's own, in forms the earlier sets do not use — a pronoun for a third person the
// user names in an earlier clause, the same attribute said of a relative and of the user in one turn,
// a negation the quote leaves out, a plan or a question quoted as a fact, the assistant's words
// echoed in the user's turn, text pasted as a quote block, a named relative's news in Chinese.
// A scripted model claims each is "user-stated" and critical; neither it nor an honest "inferred"
// answer may store it as the user's own or let it supersede or confirm what the user did say.

interface Claim {
  name: string;
  excerpt: string;
  text: string;
  quote: string;
  kind?: "fact" | "constraint";
  /** The user's own stored fact the claim must leave alone. */
  stored: string;
}

const CLAIMS: readonly Claim[] = [
  {
    name: "a friend's allergy through a pronoun",
    excerpt: "user: my friend Sara called earlier. She said she is allergic to penicillin, so she can't come",
    text: "The user is allergic to penicillin",
    quote: "she is allergic to penicillin",
    kind: "constraint",
    stored: "The user is not allergic to anything",
  },
  {
    name: "a friend's allergy with the subject left out of the quote",
    excerpt: "user: my friend said she is allergic to shellfish, so I cooked pasta instead",
    text: "The user is allergic to shellfish",
    quote: "allergic to shellfish, so I cooked pasta",
    kind: "constraint",
    stored: "The user is not allergic to anything",
  },
  {
    name: "the brother's city said beside the user's own",
    excerpt: "user: my brother lives in Paris and I live in Berlin, so we meet in Cologne",
    text: "The user lives in Paris",
    quote: "lives in Paris and I live",
    stored: "The user lives in Berlin",
  },
  {
    name: "a negation the quote leaves out",
    excerpt: "user: I'm not allergic to penicillin, my wife is. Keep that in mind for her",
    text: "The user is allergic to penicillin",
    quote: "allergic to penicillin, my wife is",
    kind: "constraint",
    stored: "The user is not allergic to anything",
  },
  {
    name: "a plan quoted as the fact",
    excerpt: "user: I will move to Lisbon next year when my contract ends",
    text: "The user lives in Lisbon",
    quote: "I will move to Lisbon next year",
    stored: "The user lives in Berlin",
  },
  {
    name: "a question quoted as the fact",
    excerpt: "user: do I still live in Lisbon according to your notes?",
    text: "The user lives in Lisbon",
    quote: "do I still live in Lisbon",
    stored: "The user lives in Berlin",
  },
  {
    name: "the assistant's words echoed back in a question",
    excerpt:
      "assistant: Since you work as a pilot, you might like this airline podcast.\nuser: why do you think I work as a pilot?",
    text: "The user works as a pilot",
    quote: "I work as a pilot",
    stored: "The user works as a nurse",
  },
  {
    name: "a sister's text pasted as a quote block",
    excerpt:
      "user: here's what my sister texted me:\n> I'm pregnant and I'm moving to Oslo in May\nwhat should I get her?",
    text: "The user is moving to Oslo in May",
    quote: "I'm moving to Oslo in May",
    stored: "The user lives in Berlin",
  },
  {
    name: "a named relative's job ending, reported",
    excerpt: "user: Lena told me she quit her job at the hospital last week, poor thing",
    text: "The user quit their job at the hospital",
    quote: "quit her job at the hospital",
    stored: "The user works at the hospital",
  },
  {
    name: "a wife's diet, named in brackets",
    excerpt: "user: Anna (my wife) says she can't eat gluten any more, the doctor confirmed it",
    text: "The user cannot eat gluten",
    quote: "she can't eat gluten any more",
    kind: "constraint",
    stored: "The user eats everything",
  },
  {
    name: "Chinese: a friend's allergy",
    excerpt: "user: 我朋友说她对青霉素过敏，所以聚会不能来",
    text: "用户对青霉素过敏",
    quote: "她对青霉素过敏",
    kind: "constraint",
    stored: "用户没有任何过敏",
  },
  {
    name: "Chinese: the assistant's guess",
    excerpt: "assistant: 你住在上海吧？那边最近很热。\nuser: 哈哈",
    text: "用户住在上海",
    quote: "你住在上海吧",
    stored: "用户住在北京",
  },
  {
    name: "Chinese: the brother's city beside the user's",
    excerpt: "user: 我哥哥住在上海，我住在北京，我们过年在南京见面",
    text: "用户住在上海",
    quote: "哥哥住在上海",
    stored: "用户住在北京",
  },
  {
    name: "Chinese: a plan",
    excerpt: "user: 我明年会搬到广州，合同到期以后",
    text: "用户住在广州",
    quote: "我明年会搬到广州",
    stored: "用户住在北京",
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

describe("attribution through the extraction runner (session 12, held out)", () => {
  it.each(CLAIMS.map((claim) => [claim.name, claim] as const))(
    "%s: a lying model's 'user-stated, critical' is not stored as the user's own",
    async (_name, claim) => {
      for (const memory of await extract(claim, "user-stated")) {
        expect(memory.evidence, memory.text).not.toBe("user-stated");
        expect(memory.importance, memory.text).not.toBe("critical");
      }
    },
  );

  it.each(CLAIMS.map((claim) => [claim.name, claim] as const))(
    "%s: lying or honest, it never supersedes or confirms what the user said",
    async (_name, claim) => {
      for (const evidence of ["user-stated", "inferred"] as const) {
        const current = await extract(claim, evidence, claim.stored);
        const mine = current.find((memory) => memory.text === claim.stored);
        expect(mine, `${evidence}: ${current.map((memory) => memory.text).join(" | ")}`).toBeDefined();
        expect(mine?.evidence).toBe("user-stated");
        expect(mine?.confirmations ?? 0).toBe(0);
      }
    },
  );

  it("the user's own long, multi-clause statement is still user-stated", async () => {
    const claim: Claim = {
      name: "plain",
      excerpt:
        "user: my brother still lives in Paris, but I moved to Lyon last month because of the new job.\nassistant: Noted.",
      text: "The user moved to Lyon last month",
      quote: "I moved to Lyon last month",
      stored: "The user lives in Paris",
    };
    const current = await extract(claim, "user-stated");
    expect(current.map((memory) => [memory.text, memory.evidence])).toEqual([
      ["The user moved to Lyon last month", "user-stated"],
    ]);
  });
});
