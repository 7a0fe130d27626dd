import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { fetchMarker, loaded, loadedBeforeFetch, loadTracer } from "../helpers/load-tracer.js";

const startServer = useFakeServers();

/** The permission decision engine: loaded on a task's first authorization request, never before. */
const engine = /\/dist\/permissions\/(authorizer|decide|commands)\.js$/;

/**
 * What only a tool call or the task's end uses: web_fetch's HTTP client, the sandbox launch builders,
 * the change tracker and the evidence gate, the schedule tools' job store, the daemon's gateway; and
 * the config file's validator, which an unchanged (or absent) config.yaml never needs. None stands in
 * front of the first model request.
 */
const afterFirstRequest =
  /\/dist\/(tools\/(web-fetch-page|run-command-exec|process-group|grep-worker)|sandbox\/wrap|agent\/completion\/(gate|changes|snapshot|contained-git|check-changes|auto-continue)|channels\/gateway|scheduler\/jobs|config\/(load|schema|mcp-schema|dashboard-schema))\.js$|^node:(https|tls)$/;

function toolContents(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content?: unknown }[] }).messages;
  return messages
    .filter((message) => message.role === "tool")
    .map((message) => JSON.stringify(message.content));
}

describe("mercury run reaches its first model request with only what it needs (built binary)", {
  timeout: 120_000,
}, () => {
  it("a plain run loads neither the command-line parser nor the permission engine when no tool is called", async () => {
    const fake = await startServer({ replies: [{ text: "Hello there." }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "say hello", "--json", "--cwd", workspace], {
      home,
      userHome,
      env: { ...providerEnv(fake.url), ...loadTracer(home) },
    });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "responded", text: "Hello there." });
    expect(fake.chatRequests()).toHaveLength(1);
    const modules = loaded(result.stderr);
    expect(modules.some((url) => url.endsWith("/dist/cli/commands/run-fast.js"))).toBe(true);
    expect(modules.filter((url) => /\/node_modules\/commander\//.test(url))).toEqual([]);
    expect(modules.filter((url) => engine.test(url))).toEqual([]);
  });

  it("the first tool call, arriving before the engine is loaded, is decided by it: a write outside the workspace is denied even with --yes, one inside is allowed", async () => {
    const fake = await startServer({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "../outside.txt", content: "escaped\n" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "inside.txt", content: "kept\n" } }] },
        { text: "Wrote inside.txt; the other path was refused." },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "write two files", "--json", "--yes", "--cwd", workspace], {
      home,
      userHome,
      env: { ...providerEnv(fake.url), ...loadTracer(home) },
    });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(existsSync(join(workspace, "..", "outside.txt"))).toBe(false);
    expect(existsSync(join(workspace, "inside.txt"))).toBe(true);
    const [refusal] = toolContents(fake.chatRequests()[1]?.body);
    expect(refusal).toMatch(/denied|refused/i);
    const [written] = toolContents(fake.chatRequests()[2]?.body).slice(-1);
    expect(written).not.toMatch(/denied|refused/i);
    const modules = loaded(result.stderr);
    expect(modules.some((url) => engine.test(url))).toBe(true);
    // Both decisions are in the audit log: the engine decided them, nothing ran around it.
    const log = await runCli(["policy", "log", "-n", "5"], { home, userHome });
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toMatch(/refused .*path\.outside-roots\n.*write: \S*\/outside\.txt/);
    expect(log.stdout).toMatch(/allowed .*\n.*write: \S*\/workspace\/inside\.txt/);
  });

  it("loads the tool implementations, the change tracker and the evidence gate after the first request, not before", async () => {
    const fake = await startServer({ replies: [{ text: "Hello there." }, { text: "Hello there." }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    // The first command validates the new config.yaml (and keeps the validated snapshot); the traced
    // run is the everyday one, on an unchanged file.
    const first = await runCli(["run", "say hello", "--json", "--cwd", workspace], {
      home,
      userHome,
      env: providerEnv(fake.url),
    });
    expect(first.code, first.stderr.slice(-2000)).toBe(0);
    const result = await runCli(["run", "say hello", "--json", "--cwd", workspace], {
      home,
      userHome,
      env: {
        ...providerEnv(fake.url),
        NODE_OPTIONS: `${loadTracer(home).NODE_OPTIONS} ${fetchMarker(home).NODE_OPTIONS}`,
      },
    });
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "responded", text: "Hello there." });
    const before = loadedBeforeFetch(result.stderr);
    expect(before.some((url) => url.endsWith("/dist/tools/web-fetch.js"))).toBe(true);
    expect(before.filter((url) => afterFirstRequest.test(url))).toEqual([]);
    // The answer still went through the evidence gate, loaded once the model had answered.
    expect(loaded(result.stderr).some((url) => url.endsWith("/dist/agent/completion/gate.js"))).toBe(true);
  });
});
