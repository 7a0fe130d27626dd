import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

/**
 * README "Other commands": `config … set KEY VALUE` "validates the whole file like `mercury` does";
 * the contract: every command that reports takes `--json`. Found by a newcomer (session 7): `config
 * set` refused to run while the file held an invalid value — the very value the error told them to
 * fix — and `config get`/`set` and a failing `undo --json` printed no JSON document.
 */
describe("config get/set and undo, as the README shows them (built binary)", () => {
  it("config set repairs an invalid value by hand, and the next run uses the repaired file", async () => {
    const fake = await server({ replies: [{ text: "first" }, { text: "second" }] });
    const { home, userHome } = makeHome(fastRetryConfig);
    const env = providerEnv(fake.url, { MERCURY_API_KEY: "k" });
    const config = join(home, "config.yaml");
    expect((await runCli(["run", "hi"], { home, userHome, env })).code).toBe(0);

    appendFileSync(config, "agent:\n  maxSteps: 0 # a typo by hand\n");
    const refused = await runCli(["run", "hi"], { home, userHome, env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("agent.maxSteps");

    const repaired = await runCli(["config", "set", "agent.maxSteps", "12"], { home, userHome });
    expect(repaired.stderr).toBe("");
    expect(repaired.code).toBe(0);
    expect(readFileSync(config, "utf8")).toContain("# a typo by hand");
    const value = await runCli(["config", "get", "agent.maxSteps", "--json"], { home, userHome, env });
    expect(JSON.parse(value.stdout)).toEqual({ key: "agent.maxSteps", value: 12 });
    expect((await runCli(["run", "hi"], { home, userHome, env })).code).toBe(0);
    expect(fake.chatRequests()).toHaveLength(2);

    // A value that still breaks the file is refused, and the file is left as it was.
    const before = readFileSync(config, "utf8");
    const bad = await runCli(["config", "set", "agent.maxSteps", "-1", "--json"], { home, userHome });
    expect(bad.code).toBe(2);
    expect(readFileSync(config, "utf8")).toBe(before);
  });

  it("config set --json prints {key, value, saved}; a hand edit after it takes effect on the next read", async () => {
    const { home, userHome } = makeHome();
    const set = await runCli(["config", "set", "model", "model-one", "--json"], { home, userHome });
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({
      key: "model",
      value: "model-one",
      saved: join(home, "config.yaml"),
    });
    writeFileSync(join(home, "config.yaml"), "model: model-two\n");
    const get = await runCli(["config", "get", "model", "--json"], { home, userHome });
    expect(JSON.parse(get.stdout)).toEqual({ key: "model", value: "model-two" });
    writeFileSync(join(home, "config.yaml"), "model: [model-three\n");
    const broken = await runCli(["config", "get", "model"], { home, userHome });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("not valid YAML");
  });

  it("config list shows every memory.* setting the README names, and set validates memory.promptTokens", async () => {
    const { home, userHome } = makeHome();
    const list = await runCli(["config", "list", "--json"], { home, userHome });
    expect(list.code).toBe(0);
    const keys = Object.keys(JSON.parse(list.stdout) as Record<string, unknown>).filter((key) =>
      key.startsWith("memory."),
    );
    expect(keys.sort()).toEqual(
      ["memory.enabled", "memory.extractAutomatically", "memory.promptTokens", "memory.showReceipts"].sort(),
    );
    const set = await runCli(["config", "set", "memory.promptTokens", "800", "--json"], { home, userHome });
    expect(set.code).toBe(0);
    const get = await runCli(["config", "get", "memory.promptTokens", "--json"], { home, userHome });
    expect(JSON.parse(get.stdout)).toEqual({ key: "memory.promptTokens", value: 800 });
    const bad = await runCli(["config", "set", "memory.promptTokens", "-5"], { home, userHome });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("memory.promptTokens");
  });

  it("undo --json with nothing to undo still prints one document (exit 2)", async () => {
    const { home, userHome } = makeHome();
    const result = await runCli(["undo", "--json"], { home, userHome });
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      taskId: null,
      applied: false,
      error: "no task has changed files yet; nothing to undo",
    });
  });
});
