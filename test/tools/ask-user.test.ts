import { describe, expect, it } from "vitest";
import { askUserTool } from "../../src/tools/ask-user.js";
import { expectError, expectOk, fakeContext } from "./helpers.js";

const dirs = { cwd: "/", home: "/" };

describe("ask_user", () => {
  it("passes question and choices to the person and returns the answer", async () => {
    const asked: [string, string[] | undefined][] = [];
    const context = fakeContext(dirs, "allow", {
      askUser: async (question, choices) => {
        asked.push([question, choices]);
        return "blue";
      },
    });
    const output = expectOk(
      await askUserTool.execute({ question: "Which colour?", choices: ["red", "blue"] }, context),
    );
    expect(output).toBe("The user answered: blue");
    expect(asked).toEqual([["Which colour?", ["red", "blue"]]]);
  });

  it("fails clearly when there is no one to ask", async () => {
    const error = expectError(await askUserTool.execute({ question: "Proceed?" }, fakeContext(dirs)));
    expect(error).toMatch(/no one to ask in this mode/);
  });

  it("reports an unanswered question (expired, channel gone) as an error, not an answer", async () => {
    const context = fakeContext(dirs, "allow", {
      askUser: async () => {
        throw new Error("the question expired after 10 minutes");
      },
    });
    const error = expectError(await askUserTool.execute({ question: "Proceed?" }, context));
    expect(error).toBe("The question got no answer: the question expired after 10 minutes");
  });

  it("validates choices", () => {
    expect(askUserTool.inputSchema.safeParse({ question: "q", choices: ["only"] }).success).toBe(false);
    expect(askUserTool.inputSchema.safeParse({ question: "" }).success).toBe(false);
    expect(askUserTool.mutating).toBe(false);
  });
});
