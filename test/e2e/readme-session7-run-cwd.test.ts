import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

/**
 * README, `mercury run`: "When the run cannot start (no provider set up, a contradictory command line,
 * a damaged database), `--json` still prints one document … with the same exit code", and `--cwd DIR`
 * names the task's folder. Found by a newcomer following the README (session 7).
 */
describe("mercury run: a folder or command line the run cannot start with (built binary)", () => {
  it("--cwd naming no folder is a usage error (exit 2), never a task run elsewhere and reported done", async () => {
    const fake = await server({ replies: [{ text: "should never be asked" }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const missing = join(workspace, "no-such-project");
    const env = providerEnv(fake.url, { MERCURY_API_KEY: "k" });

    const text = await runCli(["run", "hi", "--cwd", missing], { home, userHome, env });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain(`--cwd ${missing}: no such folder`);
    expect(text.stdout).toBe("");

    const json = await runCli(["run", "hi", "--json", "--cwd", missing], { home, userHome, env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      outcome: "failed",
      isError: true,
      exitCode: 2,
      taskId: null,
      error: expect.stringContaining("no such folder"),
    });

    const file = join(workspace, "notes.txt");
    writeFileSync(file, "a file, not a folder\n");
    const notFolder = await runCli(["run", "hi", "--json", "--cwd", file], { home, userHome, env });
    expect(notFolder.code).toBe(2);
    expect(JSON.parse(notFolder.stdout)).toMatchObject({ error: expect.stringContaining("not a folder") });
    // No task reached the model.
    expect(fake.chatRequests()).toHaveLength(0);
  });

  it("--json in a refused folder (the home folder) still prints the failure document", async () => {
    const fake = await server({ replies: [{ text: "should never be asked" }] });
    const { home, userHome } = makeHome(fastRetryConfig);
    const env = providerEnv(fake.url, { MERCURY_API_KEY: "k" });
    for (const format of [["--json"], ["--output", "stream-json"]]) {
      const result = await runCli(["run", "hi", ...format, "--cwd", userHome], { home, userHome, env });
      expect(result.code).toBe(2);
      const lines = result.stdout.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0] ?? "")).toMatchObject({
        outcome: "failed",
        isError: true,
        exitCode: 2,
        error: expect.stringContaining("is your home folder"),
        ...(format[0] === "--output" ? { type: "result" } : {}),
      });
      expect(result.stderr.split("is your home folder").length - 1).toBe(1);
    }
    expect(fake.chatRequests()).toHaveLength(0);
  });

  it("--json with a command line the parser refuses (unknown option, no task) still prints one document", async () => {
    const { home } = makeHome();
    const unknown = await runCli(["run", "hi", "--json", "--no-such-option"], { home });
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout)).toMatchObject({
      outcome: "failed",
      isError: true,
      exitCode: 2,
      error: expect.stringContaining("unknown option '--no-such-option'"),
    });
    expect(unknown.stderr).toContain("unknown option '--no-such-option'");

    const noTask = await runCli(["run", "--output", "stream-json"], { home });
    expect(noTask.code).toBe(2);
    expect(JSON.parse(noTask.stdout)).toMatchObject({
      type: "result",
      isError: true,
      error: expect.stringContaining("missing required argument 'task'"),
    });

    // Without a machine format the person gets commander's message and help, and stdout stays empty.
    const plain = await runCli(["run", "hi", "--no-such-option"], { home });
    expect(plain.code).toBe(2);
    expect(plain.stdout).toBe("");
    expect(plain.stderr).toContain("unknown option '--no-such-option'");
  });

  it("an empty task is a usage error (exit 2) before any model request, with or without --json", async () => {
    const fake = await server();
    const { home, userHome } = makeHome(fastRetryConfig);
    const env = providerEnv(fake.url, { MERCURY_API_KEY: "k" });
    const text = await runCli(["run", "  "], { home, userHome, env });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain("the task is empty");
    const json = await runCli(["run", "", "--json"], { home, userHome, env });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      isError: true,
      error: expect.stringContaining("the task is empty"),
    });
    // Piped material with an empty task is the task.
    fake.push({ text: "reviewed" });
    const piped = await runCli(["run", "", "--json"], { home, userHome, env, input: "diff --git a b\n" });
    expect(piped.code).toBe(0);
    expect(JSON.parse(piped.stdout)).toMatchObject({ text: "reviewed" });
    expect(fake.chatRequests()).toHaveLength(1);
  });
});
