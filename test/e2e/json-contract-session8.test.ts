import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

/**
 * The contract: every command that reports takes `--json` and then prints ONE JSON document on stdout,
 * also when it fails. Many commands reported a failure only as a stderr line (session 8: `schedule
 * show nope --json`, `schedule add <impossible date> --json`, an unknown option) and a script parsing
 * stdout got nothing. The program now turns such a failure into `{ok: false, error, exitCode}`.
 */
describe("--json failures print one document (built binary)", { timeout: 120_000 }, () => {
  const failing: { args: string[]; code: number; error: RegExp }[] = [
    { args: ["schedule", "show", "job-nope", "--json"], code: 1, error: /no scheduled job "job-nope"/ },
    { args: ["schedule", "pause", "job-nope", "--json"], code: 1, error: /no scheduled job/ },
    { args: ["schedule", "add", "at 2027-02-30T10:00", "x", "--json"], code: 2, error: /not a real date/ },
    {
      args: ["schedule", "add", "every 30 seconds", "x", "--json"],
      code: 2,
      error: /cannot read the schedule/,
    },
    {
      args: ["schedule", "add", "every 5 minutes", "x", "--bogus", "--json"],
      code: 2,
      error: /unknown option '--bogus'/,
    },
    {
      args: ["schedule", "history", "job-nope", "--json"],
      code: 1,
      error: /no scheduled job "job-nope"/,
    },
    { args: ["service", "status", "--bogus", "--json"], code: 2, error: /unknown option/ },
  ];

  for (const { args, code, error } of failing) {
    it(`mercury ${args.join(" ")} → exit ${code} and {ok:false}`, async () => {
      const place = makeHome();
      const result = await runCli(args, { home: place.home, userHome: place.userHome, cwd: place.workspace });
      expect(result.code, result.stderr).toBe(code);
      const lines = result.stdout.trim().split("\n");
      expect(lines).toHaveLength(1);
      const document = JSON.parse(lines[0] ?? "") as { ok: boolean; error: string; exitCode: number };
      expect(document.ok).toBe(false);
      expect(document.exitCode).toBe(code);
      expect(document.error).toMatch(error);
      expect(document.error).not.toMatch(/^mercury: |Usage:/m);
      // People still read the message on stderr.
      expect(result.stderr).toMatch(error);
    });
  }

  it("a command that prints its own failure document is not given a second one", async () => {
    const place = makeHome();
    const result = await runCli(["skills", "show", "nope", "--json"], {
      home: place.home,
      userHome: place.userHome,
      cwd: place.workspace,
    });
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({
      ok: false,
      error: expect.stringContaining("no skill"),
    });
  });

  it("without --json a failure prints nothing on stdout, and --json after `--` belongs to the checked command", async () => {
    const place = makeHome();
    const plain = await runCli(["schedule", "show", "job-nope"], {
      home: place.home,
      userHome: place.userHome,
    });
    expect(plain.code).toBe(1);
    expect(plain.stdout).toBe("");
    expect(plain.stderr).toContain('no scheduled job "job-nope"');
  });
});
