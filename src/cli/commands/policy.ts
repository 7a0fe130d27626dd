import { homedir } from "node:os";
import { resolve } from "node:path";
import type { Command } from "commander";
import { systemClock } from "../../agent/clock.js";
import { localTimestamp } from "../../daemon/log-format.js";
import { AuditLog } from "../../permissions/audit.js";
import { createPermissionContext } from "../../permissions/context.js";
import { decide } from "../../permissions/decide.js";
import { GrantStore } from "../../permissions/grants.js";
import type { SqliteDatabase } from "../../storage/database.js";
import type { AuthorizationRequest } from "../../tools/types.js";
import { exitCodes } from "../exit-codes.js";

export interface PolicyCommandDeps {
  openDatabase: () => SqliteDatabase;
  /** MERCURY_HOME. */
  home: string;
  /** The configured extra roots (the working directory is always a write root, as for the agent). */
  writeRoots?: readonly string[];
  readRoots?: readonly string[];
  /** The user's home directory (default: os.homedir()). */
  userHome?: string;
}

interface CheckOptions {
  json?: boolean;
  path?: string;
  read?: boolean;
  write?: boolean;
  cwd?: string;
}

function usageError(message: string): void {
  process.stderr.write(`mercury policy: ${message}\n`);
  process.exitCode = exitCodes.usage;
}

export function registerPolicyCommands(program: Command, deps: PolicyCommandDeps): void {
  const policy = program
    .command("policy")
    .description("what the permission engine decides, and the audit log of its decisions");

  policy
    .command("check")
    .description("show the decision (allow, ask or deny), the rule and the reason for a command or a path")
    .usage("[--json] [--cwd DIR] -- <command...>  |  --path P --read|--write")
    .option("--json", "print one JSON document")
    .option("--path <path>", "check a file path instead of a command")
    .option("--read", "with --path: check reading")
    .option("--write", "with --path: check writing")
    .option("--cwd <dir>", "working directory to judge the command in (default: the current one)")
    .argument("[command...]", "the shell command, after --")
    .action(async (words: string[], options: CheckOptions) => {
      const cwd = resolve(options.cwd ?? process.cwd());
      let request: AuthorizationRequest;
      if (options.path !== undefined) {
        if (words.length > 0) return usageError("give either --path or a command, not both");
        if (options.read === options.write)
          return usageError("--path needs exactly one of --read or --write");
        request = { kind: "path", path: options.path, access: options.write ? "write" : "read" };
      } else {
        if (options.read || options.write) return usageError("--read and --write only go with --path");
        if (words.length === 0) {
          return usageError(
            'nothing to check: give a command after "--" (mercury policy check -- ls -la) or --path P --read|--write',
          );
        }
        request = { kind: "command", command: words.join(" "), cwd };
      }
      const context = createPermissionContext({
        cwd,
        home: deps.userHome ?? homedir(),
        mercuryHome: deps.home,
        // The agent always writes in its task's working directory plus the configured roots.
        writeRoots: [cwd, ...(deps.writeRoots ?? [])],
        ...(deps.readRoots ? { readRoots: deps.readRoots } : {}),
        sessionId: "policy-check",
        userKey: "owner",
        taskId: "policy-check",
      });
      const decision = await decide(request, context);
      if (options.json) {
        const document: Record<string, unknown> = {
          decision: decision.decision,
          rule: decision.rule,
          reason: decision.reason,
          request,
        };
        if (decision.resolvedPath) document.resolvedPath = decision.resolvedPath;
        process.stdout.write(`${JSON.stringify(document)}\n`);
      } else {
        const target =
          request.kind === "path"
            ? `${request.access} ${decision.resolvedPath ?? request.path}`
            : request.command;
        process.stdout.write(`${decision.decision}  ${decision.rule}\n  ${target}\n  ${decision.reason}\n`);
      }
      // The CLI contract: 0 allow, 1 deny, 4 ask — so scripts can branch on the decision.
      process.exitCode = { allow: exitCodes.success, deny: exitCodes.failure, ask: exitCodes.ask }[
        decision.decision
      ];
    });

  policy
    .command("log")
    .description("the audit log of permission decisions, newest first")
    .option("--json", "print one JSON document")
    .option("-n, --limit <n>", "how many entries", "20")
    .action((options: { json?: boolean; limit: string }) => {
      const limit = Number(options.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000) {
        return usageError(`-n must be a whole number between 1 and 10000, got "${options.limit}"`);
      }
      const database = deps.openDatabase();
      try {
        const entries = new AuditLog(database, systemClock).list(limit);
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ entries })}\n`);
          return;
        }
        if (entries.length === 0) {
          process.stdout.write("No permission decisions recorded yet.\n");
          return;
        }
        for (const entry of entries) {
          const who = entry.approved_by ? ` by ${entry.approved_by}` : "";
          process.stdout.write(
            `${readableTime(entry.at)}  ${entry.outcome.padEnd(7)} ${entry.decision.padEnd(5)} ${entry.rule}${who}\n  ${entry.tool}: ${entry.summary}\n`,
          );
        }
      } finally {
        database.close();
      }
    });

  policy
    .command("grants")
    .description("standing permissions given in answer to approvals")
    .option("--json", "print one JSON document")
    .action((options: { json?: boolean }) => {
      const database = deps.openDatabase();
      try {
        const grants = new GrantStore(database, systemClock).list();
        if (options.json) {
          process.stdout.write(`${JSON.stringify({ grants })}\n`);
          return;
        }
        if (grants.length === 0) process.stdout.write("No standing grants.\n");
        for (const grant of grants) {
          const where = grant.scope === "session" ? `session ${grant.session_id}` : "always";
          process.stdout.write(
            `#${grant.id}  ${grant.user_key}  ${where}  ${grant.kind} ${grant.match}: ${grant.subject}\n`,
          );
        }
      } finally {
        database.close();
      }
    });

  policy
    .command("revoke")
    .description("revoke a standing grant by its number (see `mercury policy grants`)")
    .argument("<id>", "grant number")
    .option("--json", "print one JSON document")
    .action((id: string, options: { json?: boolean }) => {
      const grantId = Number(id);
      if (!Number.isInteger(grantId) || grantId < 1) return usageError(`"${id}" is not a grant number`);
      const database = deps.openDatabase();
      try {
        const revoked = new GrantStore(database, systemClock).revoke(grantId);
        if (options.json) process.stdout.write(`${JSON.stringify({ revoked, id: grantId })}\n`);
        else
          process.stdout.write(revoked ? `Revoked grant #${grantId}.\n` : `No active grant #${grantId}.\n`);
        if (!revoked) process.exitCode = exitCodes.failure;
      } finally {
        database.close();
      }
    });
}

/** Local time like `mercury logs` ("2026-12-01 14:03:07.123"); a value that is no date as it is. */
function readableTime(at: string): string {
  const epochMs = Date.parse(at);
  return Number.isNaN(epochMs) ? at : localTimestamp(epochMs);
}
