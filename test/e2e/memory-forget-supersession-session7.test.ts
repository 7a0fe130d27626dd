import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

describe("the older of two facts after the newer is forgotten (built binary)", () => {
  it("says it was superseded by a forgotten memory, never '#?', never the forgotten text", async () => {
    const { home, userHome } = makeHome();
    const cli = async (...args: string[]) => {
      const result = await runCli(args, { home, userHome });
      expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(0);
      return result.stdout;
    };
    const add = async (text: string) =>
      JSON.parse(await cli("memory", "add", "--json", text)) as { action: string; memory: { id: number } };
    const old = await add("I live in Paris");
    const newer = await add("I moved to Quimperlé");
    expect(newer.action).toBe("superseded");
    expect(await cli("memory", "list", "--all")).toContain(`superseded by #${newer.memory.id}`);

    await cli("memory", "forget", String(newer.memory.id));

    for (const args of [
      ["memory", "list", "--all"],
      ["memory", "why", String(old.memory.id)],
      ["memory", "export"],
      ["memory", "export", "--format", "md"],
    ]) {
      const out = await cli(...args);
      expect(out, args.join(" ")).not.toContain("#?");
      expect(out.toLowerCase(), args.join(" ")).not.toContain("quimper");
    }
    const listed = await cli("memory", "list", "--all");
    expect(listed).toContain(`#${old.memory.id} [fact] I live in Paris`);
    expect(listed).toContain("superseded by a forgotten memory");
    expect(await cli("memory", "export", "--format", "md")).toContain("superseded by a forgotten memory");
  });
});
