import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliPath, makeHome, runCli } from "../helpers/cli.js";
import { coverageTracer, programFiles } from "../helpers/load-tracer.js";

const packageRoot = dirname(dirname(cliPath));
const copies: string[] = [];
afterAll(() => {
  for (const copy of copies) rmSync(copy, { recursive: true, force: true });
});

/**
 * The `mercury` bin (dist/mercury.cjs) runs `memory add|search` from its CommonJS copy (dist/fast/)
 * and hands everything else to the ES-module program. The rest of the suite spawns the bin too
 * (test/helpers/cli.ts); these are the launcher's own turns.
 */
describe("the mercury bin (session 12)", () => {
  it("a memory command line the fast path leaves alone reaches the full program: help, usage errors", {
    timeout: 120_000,
  }, async () => {
    const { home, userHome } = makeHome();
    const help = await runCli(["memory", "add", "--help"], { home, userHome });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage: mercury memory add [options] <text...>");
    const missing = await runCli(["memory", "search"], { home, userHome });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("missing required argument");
    // Added through the bin, found through the bin, with nothing of the ES-module program loaded.
    const tracer = coverageTracer(home);
    const added = await runCli(["memory", "add", "--json", "My nephew Kai paints boats."], {
      home,
      userHome,
      env: tracer.env,
    });
    expect(added.code, added.stderr).toBe(0);
    expect((JSON.parse(added.stdout) as { action: string }).action).toBe("created");
    expect(programFiles(tracer.files())).toEqual([]);
  });

  it("without dist/fast (a partial build) the same command runs through the ES-module program", {
    timeout: 120_000,
  }, async () => {
    // A copy of the built package without its CommonJS copy; node_modules is shared by a link.
    const copy = mkdtempSync(join(tmpdir(), "mercury-bin-"));
    copies.push(copy);
    cpSync(join(packageRoot, "dist"), join(copy, "dist"), {
      recursive: true,
      filter: (source) => !source.startsWith(join(packageRoot, "dist", "fast")),
    });
    cpSync(join(packageRoot, "package.json"), join(copy, "package.json"));
    symlinkSync(join(packageRoot, "node_modules"), join(copy, "node_modules"));
    const { home, userHome } = makeHome();
    const tracer = coverageTracer(home);
    const added = await runCli(["memory", "add", "--json", "My niece Ada builds kites."], {
      home,
      userHome,
      env: tracer.env,
      program: join(copy, "dist", "mercury.cjs"),
    });
    expect(added.code, added.stderr).toBe(0);
    expect((JSON.parse(added.stdout) as { action: string }).action).toBe("created");
    expect(programFiles(tracer.files())).toContain(`file://${join(copy, "dist", "app", "memory-cli.js")}`);
    const found = await runCli(["memory", "search", "--json", "kites"], {
      home,
      userHome,
      program: join(copy, "dist", "mercury.cjs"),
    });
    expect((JSON.parse(found.stdout) as { results: { text: string }[] }).results[0]?.text).toBe(
      "My niece Ada builds kites.",
    );
  });
});
