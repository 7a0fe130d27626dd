import { afterEach } from "vitest";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";

/** Starts loopback OpenAI-compatible servers for a test file and closes them after each test. */
export function useFakeServers(): (
  options?: Parameters<typeof startFakeOpenAIServer>[0],
) => Promise<FakeOpenAIServer> {
  const servers: FakeOpenAIServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((entry) => entry.close()));
  });
  return async (options = {}) => {
    const started = await startFakeOpenAIServer(options);
    servers.push(started);
    return started;
  };
}
