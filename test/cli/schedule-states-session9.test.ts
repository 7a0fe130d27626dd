import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

/** `mercury schedule` with the input a hurried user gives it: each answer says what happened, with the right code. */
describe("schedule commands on jobs in every state (session 9)", () => {
  const place = makeHome();
  const cli = (args: string[]) =>
    runCli(["schedule", ...args], { home: place.home, userHome: place.userHome, cwd: place.workspace });

  it("pause of a removed job is refused (exit 1), not answered 'is removed.' with exit 0; a repeat says 'already'", async () => {
    const added = await cli(["add", "every 30 minutes", "check the build", "--deliver", "none", "--json"]);
    expect(added.code, added.stderr).toBe(0);
    const id = (JSON.parse(added.stdout) as { job: { id: string } }).job.id;

    expect((await cli(["pause", id])).stdout).toBe(`${id} is paused.\n`);
    const again = await cli(["pause", id]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`${id} was already paused.\n`);

    expect((await cli(["remove", id])).stdout).toBe(`${id} is removed.\n`);
    expect((await cli(["remove", id])).stdout).toBe(`${id} was already removed.\n`);

    for (const command of ["pause", "resume"]) {
      const refused = await cli([command, id]);
      expect(refused.code, command).toBe(1);
      expect(refused.stdout).toBe("");
      expect(refused.stderr).toBe(
        `mercury: job ${id} was removed; nothing to ${command} (add it again with \`mercury schedule add\`)\n`,
      );
    }
  });

  it("an empty task is named as such, not as a schema message; a bad number carries the mercury: prefix", async () => {
    const empty = await cli(["add", "every 30 minutes", "  "]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^mercury: the task is empty; say what the job should do/);
    expect(empty.stderr).not.toContain("Too small");

    const grace = await cli(["add", "every 30 minutes", "x", "--grace-minutes", "abc"]);
    expect(grace.code).toBe(2);
    expect(grace.stderr).toBe('mercury: --grace-minutes must be a positive number, got "abc"\n');
  });
});
