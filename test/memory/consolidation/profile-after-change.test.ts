import { describe, expect, it } from "vitest";
import { makeHarness } from "../store/harness.js";

// What the always-present profile shows after the consolidation outcomes of stated changes: the
// new state alone after a supersession, both sides flagged after a conflict, never one side hidden.

const said = (text: string) => ({
  userKey: "owner",
  text,
  kind: "fact" as const,
  importance: "normal" as const,
  evidence: "user-stated" as const,
});

async function profileAfter(first: string, second: string) {
  const { service, clock } = makeHarness();
  await service.remember(said(first));
  clock.advanceDays(1);
  const outcome = await service.remember(said(second));
  const recalled = await service.recall({
    userKey: "owner",
    query: "What should I cook tonight?",
    tokenBudget: 1000,
  });
  return { action: outcome.action, section: recalled.section };
}

describe("the profile after a stated change", () => {
  it.each([
    ["I am allergic to penicillin", "I'm not allergic to penicillin anymore"],
    ["我对花生过敏", "我对花生不过敏了"],
    ["I live in Denver", "I moved to Austin in March"],
  ])("%s -> %s: only the new state is shown", async (first, second) => {
    const { action, section } = await profileAfter(first, second);
    expect(action).toBe("superseded");
    expect(section).toContain(second);
    expect(section).not.toContain(`${first} (`);
  });

  it.each([
    ["I live in Rome and work at FAO", "I moved to Milan"],
    ["I am allergic to latex", "Actually I'm not allergic to latex"],
    ["I don't drink alcohol", "I drink wine now"],
  ])("%s -> %s: a change that cannot be placed shows both sides as a conflict", async (first, second) => {
    const { action, section } = await profileAfter(first, second);
    expect(action).toBe("conflict");
    expect(section).toContain(`CONFLICT (unresolved, ask which is current): "${first}"`);
    expect(section).toContain(`"${second}"`);
  });
});
