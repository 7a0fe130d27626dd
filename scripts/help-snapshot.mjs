#!/usr/bin/env node
// Build step: writes the real top-level help (every command group registered) to dist/help.txt, so
// `mercury --help` prints it without loading the program. test/e2e/help.test.ts checks it is current.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

// Some groups read the configuration while registering: never the builder's own (it may be invalid).
process.env.MERCURY_HOME = mkdtempSync(join(tmpdir(), "mercury-help-"));

const root = resolve(import.meta.dirname, "..");
const { buildProgram } = await import(resolve(root, "dist/cli/program.js"));
const program = await buildProgram(["node", "mercury", "help"]);
writeFileSync(resolve(root, "dist/help.txt"), program.helpInformation());
