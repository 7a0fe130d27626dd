import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

interface Added {
  memory: { id: number };
}

describe("forget and the user's own files in MERCURY_HOME/workspace", () => {
  it("redacts Mercury's records but never rewrites a workspace file; it names the file instead", {
    timeout: 120_000,
  }, async () => {
    const { home, userHome } = makeHome();
    const secret = "zebraquartz";
    const added = await runCli(["memory", "add", "--json", `My locker code word is ${secret}`], {
      home,
      userHome,
    });
    expect(added.code, added.stderr).toBe(0);
    const id = (JSON.parse(added.stdout) as Added).memory.id;
    // The daemon's tasks work in MERCURY_HOME/workspace: these are the user's files.
    const workspace = join(home, "workspace");
    mkdirSync(join(workspace, "notes"), { recursive: true });
    const userFile = join(workspace, "notes", "lockers.md");
    const userText = `# Lockers\nMy locker code word is ${secret}\nGym: Tuesdays\n`;
    writeFileSync(userFile, userText);
    // A file of Mercury's own elsewhere under MERCURY_HOME (an export) is its record: it is redacted.
    mkdirSync(join(home, "exports"), { recursive: true });
    const export_ = join(home, "exports", "memories.md");
    writeFileSync(export_, `- My locker code word is ${secret}\n- I like tea\n`);

    const forgot = await runCli(["memory", "forget", "--json", String(id)], { home, userHome });
    expect(forgot.code, forgot.stderr).toBe(0);
    const receipt = JSON.parse(forgot.stdout) as { forgotten: number; workspaceFilesHolding: string[] };
    expect(receipt.forgotten).toBe(id);
    expect(receipt.workspaceFilesHolding).toEqual([userFile]);
    // The user's file is byte for byte what they wrote; Mercury's export no longer holds the text.
    expect(readFileSync(userFile, "utf8")).toBe(userText);
    expect(readFileSync(export_, "utf8")).not.toContain(secret);
    expect(readFileSync(export_, "utf8")).toContain("I like tea");
    expect(readFileSync(join(home, "mercury.db")).toString("utf8")).not.toContain(secret);

    // In text mode the user is told which of their files still hold it.
    const again = await runCli(["memory", "add", "--json", `My bike lock code is ${secret}77`], {
      home,
      userHome,
    });
    const secondId = (JSON.parse(again.stdout) as Added).memory.id;
    writeFileSync(join(workspace, "bike.txt"), `bike lock code is ${secret}77\n`);
    const told = await runCli(["memory", "forget", String(secondId)], { home, userHome });
    expect(told.code, told.stderr).toBe(0);
    expect(told.stdout).toContain(`Forgotten: memory #${secondId}`);
    expect(told.stdout).toContain("your own files in the workspace still contain it");
    expect(told.stdout).toContain(join(workspace, "bike.txt"));
    expect(readFileSync(join(workspace, "bike.txt"), "utf8")).toBe(`bike lock code is ${secret}77\n`);
  });
});
