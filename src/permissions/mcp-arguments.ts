import { existsSync } from "node:fs";
import { isAbsolute, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { PermissionContext } from "./context.js";
import { checkFileToolPath } from "./file-hardline.js";
import type { PathFs } from "./paths.js";
import type { Decision } from "./types.js";

const maxStrings = 200;
const maxDepth = 6;

/**
 * Paths an MCP tool's arguments name on this machine. A server (especially one run without the
 * sandbox) reads or writes what its arguments say, so the path policy applies to them as to the
 * file tools: `~/.ssh/id_rsa` in a `path` field is a secret whoever opens it. Only strings that
 * are paths here count: `~…`, `file://…`, `./`/`../`, or an absolute path whose first folder
 * exists (`/etc/passwd` yes; an API route such as `/v1/users` no).
 */
export function pathsInArguments(value: unknown, cwd: string): { key: string; path: string }[] {
  const found: { key: string; path: string }[] = [];
  let seen = 0;
  const visit = (node: unknown, key: string, depth: number) => {
    if (seen >= maxStrings || depth > maxDepth) return;
    if (typeof node === "string") {
      seen++;
      const path = localPath(node, cwd);
      if (path !== null) found.push({ key, path });
      return;
    }
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) visit(item, `${key}[${index}]`, depth + 1);
      return;
    }
    if (node !== null && typeof node === "object") {
      for (const [name, item] of Object.entries(node)) visit(item, key ? `${key}.${name}` : name, depth + 1);
    }
  };
  visit(value, "", 0);
  return found;
}

function localPath(text: string, cwd: string): string | null {
  const trimmed = text.trim();
  if (trimmed.length === 0 || trimmed.length > 4096 || /[\n\r\0]/.test(trimmed)) return null;
  if (/^file:\/\//i.test(trimmed)) {
    try {
      return fileURLToPath(trimmed);
    } catch {
      // Not a local file URL (a host name in it): nothing on this machine to check.
      return null;
    }
  }
  if (trimmed === "~" || trimmed.startsWith("~/")) return trimmed;
  if (trimmed.startsWith("./") || trimmed.startsWith("../")) return resolve(cwd, trimmed);
  if (isAbsolute(trimmed)) {
    const first = trimmed.split(sep).filter((part) => part.length > 0)[0];
    return first !== undefined && existsSync(`${sep}${first}`) ? trimmed : null;
  }
  return null;
}

/**
 * The MCP decision with the path policy applied to the call's arguments: a denied path (a secret,
 * Mercury's state) denies the call in every mode and whatever the config allows; a path the file
 * tools would ask about turns an allowed call into a question.
 */
export function withArgumentPaths(
  base: Decision,
  request: { server: string; tool: string; readOnly: boolean; arguments?: unknown },
  context: PermissionContext,
  fs?: PathFs,
): Decision {
  if (request.arguments === undefined) return base;
  const access = request.readOnly ? "read" : "write";
  let asked: Decision | null = null;
  for (const { key, path } of pathsInArguments(request.arguments, context.cwd)) {
    const decision = checkFileToolPath(path, access, context, fs);
    const where = `argument ${key || "(value)"} of ${request.tool} on MCP server ${request.server} names ${path}`;
    if (decision.decision === "deny") {
      return {
        decision: "deny",
        rule: "mcp.argument-path",
        reason: `${where}: ${decision.reason}`,
        subject: base.subject,
      };
    }
    if (decision.decision === "ask" && asked === null) {
      asked = {
        decision: "ask",
        rule: "mcp.argument-path",
        reason: `${where}: ${decision.reason}`,
        subject: base.subject,
        opaque: true,
      };
    }
  }
  if (asked !== null && base.decision === "allow") return asked;
  return base;
}
