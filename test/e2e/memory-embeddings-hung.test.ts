import { describe, expect, it } from "vitest";
import { startHungServer } from "../fakes/hung-server.js";
import { makeHome, runCli } from "../helpers/cli.js";

describe("memory commands with an embedding server that accepts and never answers", () => {
  it("add and search fall back to word search after the short answer timeout, and say so", {
    timeout: 120_000,
  }, async () => {
    const hung = await startHungServer();
    try {
      const { home, userHome } = makeHome();
      // No MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS: the interactive default applies.
      const env = {
        MERCURY_EMBEDDINGS_PROVIDER: "openai-compatible",
        MERCURY_EMBEDDINGS_BASE_URL: hung.baseUrl,
        MERCURY_EMBEDDINGS_MODEL: "e",
        MERCURY_EMBEDDINGS_DIMENSIONS: "8",
      };
      const added = await runCli(["memory", "add", "I am allergic to penicillin"], { home, userHome, env });
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toContain("Remembered: I am allergic to penicillin");
      expect(hung.requests()).toBeGreaterThan(0);
      expect(added.stderr).toMatch(
        /notice: embeddings unavailable \(the embedding server at .* did not start answering within \d+ ms/,
      );
      expect(added.stderr).toContain("MERCURY_EMBEDDINGS_ANSWER_TIMEOUT_MS");
      expect(added.stderr).toContain("stored without a vector, it will be embedded later");
      // The hung server is waited for once per command, not again for the write.
      expect(added.stderr.match(/did not start answering/g)).toHaveLength(1);
      expect(added.stderr).not.toContain("Please report this");

      const before = hung.requests();
      const found = await runCli(["memory", "search", "--json", "penicillin"], { home, userHome, env });
      expect(found.code, found.stderr).toBe(0);
      expect(hung.requests()).toBeGreaterThan(before);
      expect(found.stderr).toMatch(/did not start answering.*using word search only/);
      expect(JSON.parse(found.stdout).results.map((r: { text: string }) => r.text)).toEqual([
        "I am allergic to penicillin",
      ]);
    } finally {
      await hung.close();
    }
  });
});
