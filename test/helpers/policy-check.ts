import { Command } from "commander";
import { vi } from "vitest";
import { registerPolicyCommands } from "../../src/cli/commands/policy.js";
import { loadSettings } from "../../src/config/settings.js";
import { openDatabase } from "../../src/storage/database.js";
import { type CliResult, runCli } from "./cli.js";

/**
 * `mercury policy check` for a table of commands. Spawning the built binary costs a Node start-up per
 * row (about a second each on a loaded 2-core machine), so the first row of each exit code goes
 * through the built binary, which proves that the decision reaches the shell as that exit code, and
 * every other row goes through the same commander action the binary registers, with the deps the
 * binary builds (src/cli/extensions.ts), in this process.
 */
export function policyChecker(place: { home: string; userHome: string; workspace: string }) {
  const spawnedCodes = new Set<number>();
  return async (command: string, expectedCode: number): Promise<CliResult> => {
    const args = ["policy", "check", "--json", "--cwd", place.workspace, "--", command];
    if (spawnedCodes.has(expectedCode)) return policyCheckInProcess(args, place);
    spawnedCodes.add(expectedCode);
    return runCli(args, { home: place.home, userHome: place.userHome, cwd: place.workspace });
  };
}

/** One `mercury …` command line through the policy commands in this process: its exit code and output. */
export async function policyCheckInProcess(
  args: string[],
  place: { home: string; userHome: string },
): Promise<CliResult> {
  // The environment runCli gives the binary.
  const { paths, config, env } = loadSettings({
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: place.userHome,
      MERCURY_HOME: place.home,
      NO_COLOR: "1",
    },
  });
  const program = new Command("mercury").exitOverride();
  registerPolicyCommands(program, {
    openDatabase: () => openDatabase(paths.database),
    home: paths.home,
    writeRoots: config.permissions.writeRoots,
    readRoots: config.permissions.readRoots,
    ...(env.HOME ? { userHome: env.HOME } : {}),
  });
  let stdout = "";
  let stderr = "";
  const previousExitCode = process.exitCode;
  process.exitCode = undefined;
  const stdoutWrite = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const stderrWrite = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  let code: number;
  try {
    await program.parseAsync(args, { from: "user" });
    code = Number(process.exitCode ?? 0);
  } finally {
    stdoutWrite.mockRestore();
    stderrWrite.mockRestore();
    process.exitCode = previousExitCode;
  }
  return { code, signal: null, stdout, stderr };
}
