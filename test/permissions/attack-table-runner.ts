import { expect, it } from "vitest";
import { allowAllCoverage } from "../../src/permissions/containment.js";
import { decide } from "../../src/permissions/decide.js";
import type { SandboxStatus } from "../../src/sandbox/types.js";
import type { CommandAttack } from "./attack-cases.js";
import type { Sandbox } from "./sandbox.js";

/**
 * The tables of a red-team pass, run the same way for every pass: each attack gets its decision and
 * rule, person-only asks stay out of allow-all's reach, ordinary asks stay within it, and read-only
 * commands stay allowed. Call it inside a `describe`; `sandbox` is read when the tests run (after
 * `beforeAll` made it).
 */
export interface AttackTables {
  sandbox: () => Sandbox;
  attacks?: CommandAttack[];
  personOnly?: string[];
  coveredAsks?: string[];
  allowed?: string[];
}

/** A bubblewrap sandbox that is ready: allow-all's coverage then depends on the command alone. */
export const sandboxReady: SandboxStatus = { available: true, kind: "bubblewrap" };

export function commandRequest(sandbox: Sandbox, command: string) {
  return { kind: "command" as const, command: sandbox.fill(command), cwd: sandbox.project };
}

export function runAttackTables(tables: AttackTables): void {
  const request = (command: string) => commandRequest(tables.sandbox(), command);
  const context = () => tables.sandbox().context;

  if (tables.attacks && tables.attacks.length > 0) {
    it.each(tables.attacks)("$group: $command -> $decision $rule", async ({ command, decision, rule }) => {
      const result = await decide(request(command), context());
      expect({ decision: result.decision, rule: result.rule }).toEqual({ decision, rule });
    });
  }

  if (tables.personOnly && tables.personOnly.length > 0) {
    it.each(tables.personOnly)("asks a person (never --yes) for %s", async (command) => {
      const result = await decide(request(command), context());
      expect(result.decision, `${result.rule}: ${result.reason}`).toBe("ask");
      const coverage = allowAllCoverage(request(command), result, context(), sandboxReady);
      expect(coverage.covered, `${result.rule}: ${result.reason}`).toBe(false);
    });
  }

  if (tables.coveredAsks && tables.coveredAsks.length > 0) {
    it.each(tables.coveredAsks)("still asks within --yes's reach: %s", async (command) => {
      const result = await decide(request(command), context());
      expect(result.decision, `${result.rule}: ${result.reason}`).toBe("ask");
      const coverage = allowAllCoverage(request(command), result, context(), sandboxReady);
      expect(coverage.covered, `${result.rule}: ${result.reason}`).toBe(true);
    });
  }

  if (tables.allowed && tables.allowed.length > 0) {
    it.each(tables.allowed)("still allows %s", async (command) => {
      const result = await decide(request(command), context());
      expect({ decision: result.decision, rule: result.rule }).toEqual({
        decision: "allow",
        rule: "command.readonly",
      });
    });
  }
}
