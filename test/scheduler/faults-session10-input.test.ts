import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/container.js";
import { scheduledRunTools } from "../../src/scheduler/authorization.js";
import { scheduledRunToolNames } from "../../src/scheduler/tool-names.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { makeHome, runCli } from "../helpers/cli.js";
import { scriptedProviderEnv } from "../helpers/scripted-app.js";

/** Session 10: what `mercury schedule add` accepted that it should have refused, through the built binary. */
describe("schedule add: bad input (session 10)", { timeout: 120_000 }, () => {
  it("the list --tools is checked against is the tools a scheduled run really holds", () => {
    const { home } = makeHome("memory:\n  enabled: true\n");
    const app = createApp({ env: scriptedProviderEnv(home), modelFactory: () => new ScriptedModel([]) });
    try {
      const held = scheduledRunTools(app.tools, null).map((tool) => tool.name);
      expect([...held].sort()).toEqual([...scheduledRunToolNames].sort());
    } finally {
      app.close();
    }
  });

  it("an unknown --tools name is a usage error naming it and the valid tools; nothing is stored", async () => {
    const place = makeHome();
    const cli = (args: string[]) =>
      runCli(args, { home: place.home, userHome: place.userHome, cwd: place.workspace });
    const refused = await cli(["schedule", "add", "every 30 minutes", "check", "--tools", "nosuchtool"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('unknown tool "nosuchtool"');
    expect(refused.stderr).toContain("read_file, write_file");

    const json = await cli([
      "schedule",
      "add",
      "every 30 minutes",
      "check",
      "--tools",
      "read_fle,rm",
      "--json",
    ]);
    expect(json.code).toBe(2);
    const document = JSON.parse(json.stdout) as { ok: boolean; error: string; exitCode: number };
    expect(document).toMatchObject({ ok: false, exitCode: 2 });
    expect(document.error).toContain('unknown tools "read_fle", "rm"');

    for (const empty of ["", ",,"]) {
      const none = await cli(["schedule", "add", "every 30 minutes", "check", "--tools", empty]);
      expect(none.code, `--tools "${empty}"`).toBe(2);
      expect(none.stderr).toContain("--tools names no tool");
    }
    const listed = JSON.parse((await cli(["schedule", "list", "--json"])).stdout) as { jobs: unknown[] };
    expect(listed.jobs).toEqual([]);

    const kept = await cli([
      "schedule",
      "add",
      "every 30 minutes",
      "check",
      "--tools",
      "read_file, search_files,read_file",
      "--json",
    ]);
    expect(kept.code, kept.stderr).toBe(0);
    expect(JSON.parse(kept.stdout).job.permissions).toEqual({ tools: ["read_file", "search_files"] });
  });

  it("errors name the flag the person typed, not the request's field", async () => {
    const place = makeHome();
    const cli = (args: string[]) =>
      runCli(args, { home: place.home, userHome: place.userHome, cwd: place.workspace });
    const fractional = await cli(["schedule", "add", "0 9 * * *", "x", "--run-tokens", "1.5"]);
    expect(fractional.code).toBe(2);
    expect(fractional.stderr).toContain('--run-tokens is a number of tokens, a whole number; got "1.5"');
    expect(fractional.stderr).not.toContain("runTokens");

    const emptyWhen = await cli(["schedule", "add", "", "x"]);
    expect(emptyWhen.code).toBe(2);
    expect(emptyWhen.stderr).toContain("<when> is empty");
    expect(emptyWhen.stderr).not.toContain("Too small");

    const emptyName = await cli(["schedule", "add", "0 9 * * *", "x", "--name", " "]);
    expect(emptyName.code).toBe(2);
    expect(emptyName.stderr).toContain("--name is empty");

    const longGrace = await cli(["schedule", "add", "0 9 * * *", "x", "--grace-minutes", "99999"]);
    expect(longGrace.code).toBe(2);
    expect(longGrace.stderr).toContain("--grace-minutes");
    expect(longGrace.stderr).not.toContain("graceMinutes");
  });
});
