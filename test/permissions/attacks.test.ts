import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decide } from "../../src/permissions/decide.js";
import {
  commandAttacks as baseCommandAttacks,
  pathAttacks as basePathAttacks,
  networkAttacks,
} from "./attack-cases.js";
import { issue9CommandAttacks, issue9PathAttacks } from "./attack-cases-issue9.js";
import { redteamCommandAttacks, redteamPathAttacks } from "./attack-cases-redteam.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

const commandAttacks = [...baseCommandAttacks, ...issue9CommandAttacks, ...redteamCommandAttacks];
const pathAttacks = [...basePathAttacks, ...issue9PathAttacks, ...redteamPathAttacks];

let sandbox: Sandbox;
beforeAll(() => {
  sandbox = createSandbox();
});
afterAll(() => sandbox.cleanup());

describe("security suite", () => {
  it("has at least 400 attack cases", () => {
    expect(commandAttacks.length + pathAttacks.length + networkAttacks.length).toBeGreaterThanOrEqual(400);
  });

  it.each(commandAttacks)("$group: $command -> $decision $rule", async ({ command, decision, rule }) => {
    const result = await decide(
      { kind: "command", command: sandbox.fill(command), cwd: sandbox.project },
      sandbox.context,
    );
    expect({ decision: result.decision, rule: result.rule }).toEqual({ decision, rule });
  });

  it.each(pathAttacks)(
    "$group: $access $path -> $decision $rule",
    async ({ path, access, decision, rule }) => {
      const result = await decide({ kind: "path", path: sandbox.fill(path), access }, sandbox.context);
      expect({ decision: result.decision, rule: result.rule }).toEqual({ decision, rule });
    },
  );

  it("asks when the command runs in a folder outside the roots", async () => {
    const result = await decide({ kind: "command", command: "ls", cwd: sandbox.outside }, sandbox.context);
    expect({ decision: result.decision, rule: result.rule }).toEqual({
      decision: "ask",
      rule: "path.outside-roots",
    });
  });

  it("denies a command whose working directory is a secret folder", async () => {
    const result = await decide(
      { kind: "command", command: "cat id_rsa", cwd: `${sandbox.home}/.ssh` },
      sandbox.context,
    );
    expect({ decision: result.decision, rule: result.rule }).toEqual({
      decision: "deny",
      rule: "path.sensitive",
    });
  });

  it.each(networkAttacks)("$group: $url -> deny $rule", async ({ url, rule }) => {
    const result = await decide({ kind: "network", url }, sandbox.context);
    expect({ decision: result.decision, rule: result.rule }).toEqual({ decision: "deny", rule });
  });
});
