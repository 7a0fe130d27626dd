import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { plantedSubscripts } from "../../src/permissions/arithmetic-names.js";
import { programFiles, sedExecCommands, sshConfigCommands } from "../../src/permissions/option-files.js";
import { resplitSource } from "../../src/permissions/speculation.js";
import {
  session10Allowed,
  session10CommandAttacks,
  session10CoveredAsks,
  session10Fixtures,
  session10PersonOnly,
} from "./attack-cases-session10.js";
import { runAttackTables } from "./attack-table-runner.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

let sandbox: Sandbox;
beforeAll(() => {
  // Without the hard-linked secret, so allow-all coverage is decided by each command alone.
  sandbox = createSandbox({ withHardLinkedSecret: false });
  for (const [path, text] of Object.entries(session10Fixtures(sandbox.home))) {
    mkdirSync(dirname(join(sandbox.project, path)), { recursive: true });
    writeFileSync(join(sandbox.project, path), text);
  }
  for (const path of ["build.rs", "CMakeLists.txt", ".gitmodules"])
    writeFileSync(join(sandbox.project, path), "# fixture\n");
});
afterAll(() => sandbox.cleanup());

describe("red-team pass 10", () => {
  runAttackTables({
    sandbox: () => sandbox,
    attacks: session10CommandAttacks,
    personOnly: session10PersonOnly,
    coveredAsks: session10CoveredAsks,
    allowed: session10Allowed,
  });
});

describe("file tools on the pass-10 autorun files", () => {
  it.each([
    [".gitmodules", "ask", "path.autorun"],
    ["build.rs", "ask", "path.autorun"],
    ["CMakeLists.txt", "ask", "path.autorun"],
    [".bundle/config", "ask", "path.autorun"],
    ["gradle/wrapper/gradle-wrapper.properties", "ask", "path.autorun"],
    ["src/build.rs.txt", "allow", "path.write-root"],
    ["src/main.rs", "allow", "path.write-root"],
  ] as const)("writing %s -> %s %s", async (path, decision, rule) => {
    const { decide } = await import("../../src/permissions/decide.js");
    const request = { kind: "path" as const, path: join(sandbox.project, path), access: "write" as const };
    const result = await decide(request, sandbox.context);
    expect({ decision: result.decision, rule: result.rule }).toEqual({ decision, rule });
  });
});

describe("pass-10 readers", () => {
  it("finds the files options name, per program", () => {
    expect(programFiles("awk", ["-f", "a.awk", "x"])).toEqual([{ file: "a.awk", kind: "code" }]);
    expect(programFiles("gsed", ["--file=s.sed"])).toEqual([{ file: "s.sed", kind: "sed" }]);
    expect(programFiles("scp", ["-Fcfg", "a", "b:"])).toEqual([{ file: "cfg", kind: "ssh-config" }]);
    expect(programFiles("find", ["-files0-from", "l", "-delete"])).toEqual([{ file: "l", kind: "roots" }]);
    expect(programFiles("ls", ["-f", "x"])).toEqual([]);
    expect(programFiles("constructor", ["-f", "x"])).toEqual([]);
  });

  it("reads the commands an ssh config and a sed script run", () => {
    expect(sshConfigCommands('Host *\n  ProxyCommand nc %h %p\nMatch host x exec "test -f y"\n')).toEqual([
      "nc %h %p",
      "test -f y",
    ]);
    expect(sedExecCommands("1e date\n/x/e\ns/a/b/\n")).toEqual({
      commands: ["date"],
      runsPatternSpace: true,
    });
  });

  it("finds subscripts planted in names that arithmetic reads", () => {
    const variables = new Map([["x", ["a[$(date)]"]]]);
    expect(plantedSubscripts("echo $((x + 1))", variables).scripts).toEqual(["date"]);
    expect(plantedSubscripts("echo $((y + 1))", variables).scripts).toEqual([]);
  });

  it("splits unquoted expansions the way IFS does, escaping the rest", () => {
    const context = {
      ...sandbox.context,
      speculation: {
        variables: new Map([["x", ["rm -rf ~"]]]),
        pass: 0,
        substitute: () => null,
        userHome: () => null,
      },
    };
    expect(resplitSource("$x", context)).toBe("rm -rf \\~");
    expect(resplitSource('"$x"', context)).toBeNull();
    // The default IFS is space, tab and newline: each becomes a word break.
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a template.
    expect(resplitSource("rm${IFS}-rf", context)).toBe("rm   -rf");
  });
});
