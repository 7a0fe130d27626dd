import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { computedCodeFinding, foldedLiterals } from "../../src/permissions/computed-code.js";
import { privilegeChangeFinding } from "../../src/permissions/privilege-changes.js";
import { registryCodeFinding } from "../../src/permissions/registry-code.js";
import {
  session12CommandAttacks,
  session12CoveredAsks,
  session12Fixtures,
  session12PersonOnly,
} from "./attack-cases-session12.js";
import { runAttackTables } from "./attack-table-runner.js";
import { createSandbox, type Sandbox } from "./sandbox.js";

let sandbox: Sandbox;
beforeAll(() => {
  // Without the hard-linked secret, so allow-all coverage is decided by each command alone.
  sandbox = createSandbox({ withHardLinkedSecret: false });
  for (const [path, content] of Object.entries(session12Fixtures)) {
    mkdirSync(dirname(join(sandbox.project, path)), { recursive: true });
    writeFileSync(join(sandbox.project, path), content);
  }
});
afterAll(() => sandbox.cleanup());

describe("red-team pass 12", () => {
  runAttackTables({
    sandbox: () => sandbox,
    attacks: session12CommandAttacks,
    personOnly: session12PersonOnly,
    coveredAsks: session12CoveredAsks,
  });
});

describe("pass-12 readers", () => {
  it("folds joined string literals the way each language joins them", () => {
    expect(foldedLiterals('os.system("r"+"m -rf ~")')).toContain("rm -rf ~");
    expect(foldedLiterals("system('r' . 'm' . ' x')")).toContain("rm x");
    expect(foldedLiterals('os.execute("r".."m")')).toContain("rm");
    expect(foldedLiterals('print("a", "b")')).toEqual([]);
  });

  it("calls code opaque only when it builds what it runs", () => {
    expect(computedCodeFinding("import os;os.system(chr(114))")?.rule).toBe("command.eval");
    expect(computedCodeFinding('require("child_"+"process")')?.rule).toBe("command.eval");
    expect(computedCodeFinding("print(chr(65))")).toBeNull();
    expect(computedCodeFinding('import subprocess; subprocess.run(["ls"]).stdout.decode()')).toBeNull();
  });

  it("finds a registry package by its name, its -p option or its version", () => {
    const cwd = sandbox.project;
    expect(registryCodeFinding("npx", ["tsc", "--noEmit"], cwd)).toBeNull();
    expect(registryCodeFinding("npx", ["-p", "typescript", "tsc"], cwd)).toBeNull();
    expect(registryCodeFinding("npx", ["-p", "evil", "tsc"], cwd)?.rule).toBe("command.registry-code");
    expect(registryCodeFinding("npx", ["typescript@4", "tsc"], cwd)?.rule).toBe("command.registry-code");
    expect(registryCodeFinding("npm", ["init"], cwd)).toBeNull();
  });

  it("reads set-ID bits in octal and symbolic modes", () => {
    expect(privilegeChangeFinding("chmod", ["4755", "x"])?.rule).toBe("command.privilege");
    expect(privilegeChangeFinding("chmod", ["u+x,g+s", "x"])?.rule).toBe("command.privilege");
    expect(privilegeChangeFinding("chmod", ["1777", "x"])).toBeNull();
    expect(privilegeChangeFinding("chmod", ["-R", "755", "x"])).toBeNull();
  });
});
