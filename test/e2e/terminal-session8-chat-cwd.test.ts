import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("mercury chat --cwd (built binary)", () => {
  it("a folder that does not exist is a usage error (exit 2) before anything is asked of the model", async () => {
    const fake = await server({ replies: [{ text: "should not be asked" }] });
    const { home, userHome } = makeHome(fastRetryConfig);
    const missing = join(userHome, "no-such-project");
    const result = await runCli(["chat", "--cwd", missing], {
      home,
      userHome,
      env: providerEnv(fake.url),
      input: "hello\n",
    });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`--cwd ${missing}: no such folder. Give an existing project folder.`);
    expect(fake.chatRequests()).toHaveLength(0);
  });
});
