import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("complete reports (built binary, loopback model)", { timeout: 120_000 }, () => {
  it("a continued answer after finish 'length' is reported whole", async () => {
    const fake = await server({
      replies: [{ text: "The first part, ", finishReason: "length" }, { text: "and the second part." }],
    });
    const { home, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "write a long answer", "--json"], {
      home,
      cwd: workspace,
      env: providerEnv(fake.url),
    });
    expect(JSON.parse(result.stdout)).toMatchObject({
      outcome: "responded",
      text: "The first part, and the second part.",
    });
  });

  it("failed tool calls appear in --json as toolErrors with tool, error and step", async () => {
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "read_file", input: { path: "missing.txt" } }] },
        { text: "The file does not exist." },
      ],
    });
    const { home, workspace } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "read missing.txt", "--json"], {
      home,
      cwd: workspace,
      env: providerEnv(fake.url),
    });
    const report = JSON.parse(result.stdout);
    expect(report.toolErrors).toHaveLength(1);
    expect(report.toolErrors[0]).toMatchObject({ tool: "read_file", step: 1 });
    expect(report.toolErrors[0].error).toContain("missing.txt");
  });
});
