import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { extractionOf } from "../../src/permissions/archive-extraction.js";
import { archiveMembers } from "../../src/permissions/archive-members.js";
import { printfEscapes } from "../../src/permissions/decoders.js";
import { rebindSource } from "../../src/permissions/rebinding.js";
import {
  session11Allowed,
  session11CommandAttacks,
  session11CoveredAsks,
  session11Fixtures,
  session11PersonOnly,
} from "./attack-cases-session11.js";
import { runAttackTables } from "./attack-table-runner.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

let sandbox: Sandbox;
beforeAll(() => {
  // Without the hard-linked secret, so allow-all coverage is decided by each command alone.
  sandbox = createSandbox({ withHardLinkedSecret: false });
  for (const [path, content] of Object.entries(session11Fixtures(sandbox.home))) {
    mkdirSync(dirname(join(sandbox.project, path)), { recursive: true });
    writeFileSync(join(sandbox.project, path), content);
  }
});
afterAll(() => sandbox.cleanup());

describe("red-team pass 11", () => {
  runAttackTables({
    sandbox: () => sandbox,
    attacks: session11CommandAttacks,
    personOnly: session11PersonOnly,
    coveredAsks: session11CoveredAsks,
    allowed: session11Allowed,
  });
});

describe("file tools on a Cargo build script", () => {
  it.each([
    ["crate/tools/gen.rs", "ask", "path.autorun"],
    ["crate/src/lib.rs", "allow", "path.write-root"],
  ] as const)("writing %s -> %s %s", async (path, decision, rule) => {
    const { decide } = await import("../../src/permissions/decide.js");
    const request = { kind: "path" as const, path: join(sandbox.project, path), access: "write" as const };
    const result = await decide(request, sandbox.context);
    expect({ decision: result.decision, rule: result.rule }).toEqual({ decision, rule });
  });
});

describe("pass-11 readers", () => {
  it("reads tar (plain, gzip) and zip member names without extracting", () => {
    expect(archiveMembers("hooks.tar", sandbox.project)).toEqual([
      { name: "src/" },
      { name: ".git/hooks/pre-commit" },
    ]);
    expect(archiveMembers("hooks.tgz", sandbox.project)).toEqual([{ name: "./.git/hooks/post-checkout" }]);
    expect(archiveMembers("link.zip", sandbox.project)).toEqual([{ name: "h", link: sandbox.home }]);
    expect(archiveMembers("broken.tar", sandbox.project)).toBeNull();
    expect(archiveMembers("missing.tar", sandbox.project)).toBeNull();
  });

  it("finds what an archiver extracts and where", () => {
    expect(extractionOf("tar", ["xvfC", "a.tar", "out"])).toMatchObject({
      archive: "a.tar",
      destination: "out",
    });
    expect(extractionOf("tar", ["-xzfa.tgz", "--strip-components=2"])).toMatchObject({
      archive: "a.tgz",
      strip: 2,
    });
    expect(extractionOf("unzip", ["-o", "a.zip", "-d", "v"])).toMatchObject({
      archive: "a.zip",
      destination: "v",
    });
    expect(extractionOf("tar", ["-tf", "a.tar"])).toBeNull();
    expect(extractionOf("unzip", ["-l", "a.zip"])).toBeNull();
    expect(extractionOf("7z", ["l", "a.7z"])).toBeNull();
  });

  it("follows function bodies to their matching brace", () => {
    expect(rebindSource('f() { { rm -rf "$1"; }; }; f ~')).toContain("{ rm -rf ~; }");
    expect(rebindSource('f() { echo "}"; ls "$1"; }; f .')).toContain('echo "}"; ls .');
  });

  it("turns echo -e and printf escapes into characters in one pass", () => {
    expect(printfEscapes("a\\nb\\tc")).toBe("a\nb\tc");
    expect(printfEscapes("\\\\n")).toBe("\\n");
    expect(printfEscapes("\\x72\\0155")).toBe("rm");
  });
});
