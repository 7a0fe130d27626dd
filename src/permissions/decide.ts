import ipaddr from "ipaddr.js";
import type { AuthorizationRequest } from "../tools/types.js";
import { decideCommand } from "./commands.js";
import type { PermissionContext } from "./context.js";
import { checkFileToolPath } from "./file-hardline.js";
import { withArgumentPaths } from "./mcp-arguments.js";
import type { PathFs } from "./paths.js";
import type { Decision } from "./types.js";

export interface DecideOptions {
  fs?: PathFs;
}

/**
 * The one decision function: what the engine concludes about a request before grants, allow-all
 * or approvals are considered. Async so the parser behind it can be swapped for an async one.
 */
export async function decide(
  request: AuthorizationRequest,
  context: PermissionContext,
  options: DecideOptions = {},
): Promise<Decision> {
  switch (request.kind) {
    case "command":
      return decideCommand(request.command, request.cwd || context.cwd, context, options);
    case "path":
      return checkFileToolPath(request.path, request.access, context, options.fs);
    case "network":
      return exfiltrationCheck(decideNetwork(request.url), request.url, context);
    case "mcp":
      return withArgumentPaths(decideMcp(request), request, context, options.fs);
  }
}

/**
 * Once untrusted content (a web page, a file from outside the workspace) has entered the task, a
 * fetch to a host the task has not contacted asks: injected instructions cannot quietly send
 * memories or files to a new address.
 */
function exfiltrationCheck(decision: Decision, url: string, context: PermissionContext): Decision {
  const state = context.network;
  if (decision.decision !== "allow" || !state?.untrusted) return decision;
  const host = new URL(url).hostname.toLowerCase();
  if (state.contactedHosts.has(host)) return decision;
  return {
    decision: "ask",
    rule: "network.exfiltration",
    reason: `this task has read ${state.untrusted}; ${host} has not been contacted in this task, and a fetch could send data out`,
    subject: decision.subject,
  };
}

/**
 * MCP calls ask by default. Allowed without asking only when the user listed the tool in config,
 * or marked the server trusted and the server annotates the tool read-only. Opaque: an MCP server
 * is outside the OS sandbox, so a session's allow-all never covers its calls.
 */
export function decideMcp(request: Extract<AuthorizationRequest, { kind: "mcp" }>): Decision {
  const subject = mcpSubject(request.server, request.tool);
  // `mcp:<server>/*` is the whole-server grant's subject: a tool named `*` must never be approved
  // "always" and so unlock every tool of its server (the client drops such names too, mcp/tool-names.ts).
  if (request.tool === "*") {
    return {
      decision: "deny",
      rule: "mcp.tool-name",
      reason: `MCP server ${request.server} offers a tool named "*", which would stand for all of its tools`,
      subject,
    };
  }
  if (request.allowedByConfig) {
    return {
      decision: "allow",
      rule: "mcp.configured",
      reason: `${request.tool} is in mcp.servers.${request.server}.tools.allow`,
      subject,
    };
  }
  if (request.trusted && request.readOnly) {
    return {
      decision: "allow",
      rule: "mcp.trusted-read-only",
      reason: `server ${request.server} is trusted and ${request.tool} is annotated read-only`,
      subject,
    };
  }
  return {
    decision: "ask",
    rule: "mcp.call",
    reason: `a call to ${request.tool} on MCP server ${request.server}${request.readOnly ? " (read-only by the server's own word; the server is not trusted)" : ""}`,
    subject,
    opaque: true,
  };
}

/** What an MCP approval or grant is keyed on; `*` as the tool covers the whole server. */
export function mcpSubject(server: string, tool: string): string {
  return `mcp:${server}/${tool}`;
}

/**
 * Network requests: only http(s). Literal private, loopback, link-local and metadata addresses are
 * refused here; host names are resolved and checked again on every redirect by the fetch tool's
 * SSRF guard (src/permissions/network.ts), which is where DNS answers are known.
 */
export function decideNetwork(url: string): Decision {
  const subject = `url:${url}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { decision: "deny", rule: "network.invalid-url", reason: `"${url}" is not a valid URL`, subject };
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return {
      decision: "deny",
      rule: "network.scheme",
      reason: `only http and https URLs may be fetched, not ${parsed.protocol}`,
      subject,
    };
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost") || host === "metadata.google.internal") {
    return {
      decision: "deny",
      rule: "network.private-address",
      reason: `${host} is a local or metadata address`,
      subject,
    };
  }
  if (ipaddr.isValid(host)) {
    let address = ipaddr.parse(host);
    if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      address = (address as ipaddr.IPv6).toIPv4Address();
    }
    if (address.range() !== "unicast") {
      return {
        decision: "deny",
        rule: "network.private-address",
        reason: `${host} is a ${address.range()} address`,
        subject,
      };
    }
  }
  return {
    decision: "allow",
    rule: "network.http",
    reason: "http(s) URL; the address is checked again after DNS resolution",
    subject,
  };
}
