import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { fetchMarker, loaded, loadedBeforeFetch, loadTracer } from "../helpers/load-tracer.js";

const server = useFakeServers();

/** Both the module trace and the first-fetch marker, in one NODE_OPTIONS. */
function traced(directory: string): Record<string, string> {
  return { NODE_OPTIONS: `${loadTracer(directory).NODE_OPTIONS} ${fetchMarker(directory).NODE_OPTIONS}` };
}

const skillService = /\/dist\/skills\/service\.js$/;
// The entry (mcp/lazy.js, a few lines) is loaded; the manager, connections and sandbox wrapper are not.
const anyMcp = /\/dist\/mcp\/(?!lazy\.js$)/;

interface ChatBody {
  messages: { role: string; content: unknown }[];
  tools?: { function: { name: string } }[];
}

function toolNames(body: ChatBody): string[] {
  return (body.tools ?? []).map((tool) => tool.function.name);
}

describe("mercury run loads skills and MCP only when they exist (built binary)", () => {
  it("with no skill folder and no MCP server it loads neither, yet offers propose_skill as before", {
    timeout: 120_000,
  }, async () => {
    const fake = await server({ replies: [{ text: "Hi." }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "hi", "--json"], {
      home,
      userHome,
      cwd: workspace,
      env: { ...providerEnv(fake.url), ...traced(home) },
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: "responded", text: "Hi." });
    const before = loadedBeforeFetch(result.stderr);
    expect(before.some((url) => url.endsWith("/dist/app/compose.js"))).toBe(true);
    expect(before.filter((url) => skillService.test(url) || anyMcp.test(url))).toEqual([]);
    // Nothing was proposed or activated: the task's end does not load them either.
    expect(loaded(result.stderr).filter((url) => skillService.test(url) || anyMcp.test(url))).toEqual([]);
    const body = fake.chatRequests()[0]?.body as ChatBody;
    expect(toolNames(body)).toContain("propose_skill");
    expect(toolNames(body)).not.toContain("activate_skill");
    expect(JSON.stringify(body.messages[0]?.content)).not.toContain("# Skills");
  });

  it("with a skill in MERCURY_HOME the first request lists it and offers activate_skill", {
    timeout: 120_000,
  }, async () => {
    const fake = await server({ replies: [{ text: "Hi." }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    mkdirSync(join(home, "skills", "release-notes"), { recursive: true });
    writeFileSync(
      join(home, "skills", "release-notes", "SKILL.md"),
      "---\nname: release-notes\ndescription: Writes the release notes from the git log.\n---\n\nRead git log.\n",
    );
    const result = await runCli(["run", "hi", "--json"], {
      home,
      userHome,
      cwd: workspace,
      env: { ...providerEnv(fake.url), ...traced(home) },
    });
    expect(result.code).toBe(0);
    expect(loadedBeforeFetch(result.stderr).some((url) => skillService.test(url))).toBe(true);
    const body = fake.chatRequests()[0]?.body as ChatBody;
    expect(toolNames(body)).toEqual(expect.arrayContaining(["activate_skill", "propose_skill"]));
    const system = JSON.stringify(body.messages[0]?.content);
    expect(system).toContain("# Skills");
    expect(system).toContain("release-notes: Writes the release notes from the git log.");
  });

  it("with an MCP server configured its tools are in the first request", { timeout: 120_000 }, async () => {
    const fake = await server({ replies: [{ text: "Hi." }] });
    const serverMain = join(import.meta.dirname, "../fakes/mcp-server.ts");
    const tsx = import.meta.resolve("tsx");
    const { home, userHome, workspace } = makeHome(
      `${fastRetryConfig}mcp:\n  servers:\n    plain:\n      command: ${JSON.stringify(process.execPath)}\n      args: ["--import", ${JSON.stringify(tsx)}, ${JSON.stringify(serverMain)}]\n      sandbox: false\n`,
    );
    const result = await runCli(["run", "hi", "--json"], {
      home,
      userHome,
      cwd: workspace,
      env: providerEnv(fake.url),
    });
    expect(result.code).toBe(0);
    expect(toolNames(fake.chatRequests()[0]?.body as ChatBody)).toContain("mcp__plain__echo");
  });
});
