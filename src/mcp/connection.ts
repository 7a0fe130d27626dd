import type { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { McpServerConfig } from "../config/mcp-schema.js";
import { redactSecrets } from "../permissions/redact.js";
import type { McpDefinitionStore } from "./definitions.js";
import { McpError } from "./errors.js";
import { boundedFetch, oversizedMessage } from "./http-limit.js";
import { httpHeaders, type LaunchWrapper, stdioLaunch } from "./launch.js";
import { StderrTail } from "./stderr-tail.js";
import { LinearReadBuffer } from "./stdio-buffer.js";
import { plainServerText, usableMcpTools } from "./tool-names.js";

export interface McpToolInfo {
  name: string;
  description: string;
  /** The tool's JSON Schema for its arguments, as the server listed it. */
  inputSchema: Record<string, unknown>;
  /** The server's own `readOnlyHint` annotation (only honoured for trusted servers). */
  readOnly: boolean;
}

export interface McpCallResult {
  isError: boolean;
  text: string;
}

export interface McpConnectionOptions {
  env: NodeJS.ProcessEnv;
  home: string;
  /** The sandbox hook for stdio servers (see launch.ts). */
  wrapLaunch?: LaunchWrapper;
  /** Crashes, restarts and failures, for the log and the user. */
  onEvent?: (level: "info" | "warn" | "error", message: string) => void;
  startupTimeoutMs?: number;
  /** Restart delays after a crash: doubling from the first, capped at the second. */
  backoffMs?: { initial: number; max: number };
  version?: string;
  /** Tool definitions kept across restarts, which tie standing approvals to a tool (definitions.ts). */
  definitions?: Pick<McpDefinitionStore, "reconcile" | "pendingChange" | "acknowledge">;
}

export const defaultCallTimeoutMs = 60_000;

type Status = "stopped" | "starting" | "ready" | "down";

/**
 * One MCP server: connect (stdio or streamable HTTP), list its tools, call them with a timeout and
 * the caller's abort signal. A server that exits is reported and restarted with backoff; a call
 * to a server that is down fails at once with that reason (never waits).
 */
export class McpConnection {
  private client: Client | null = null;
  private status: Status = "stopped";
  private listed: McpToolInfo[] = [];
  private closing = false;
  private restartTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private starting: Promise<void> | null = null;
  /** Fails the calls waiting for an answer (see the transport's onerror). */
  private readonly inFlight = new Set<(error: Error) => void>();
  /** Each tool's definition as first listed (see pinnedTools); null before the first start. */
  private pinned: Map<string, string> | null = null;
  lastError: string | null = null;
  restarts = 0;
  /** The end of a stdio server's stderr: why it exited (stderr-tail.ts). */
  private readonly stderrTail = new StderrTail();

  /** Values the config hands this server (headers, env, the URL's query): kept out of logs and errors. */
  private readonly secrets: string[];
  private readonly options: McpConnectionOptions;

  constructor(
    readonly name: string,
    readonly config: McpServerConfig,
    options: McpConnectionOptions,
  ) {
    this.secrets = configuredSecrets(config, options.env);
    const onEvent = options.onEvent;
    // A server can echo a credential back in an error (a 401 body quoting the header it got).
    this.options = onEvent
      ? { ...options, onEvent: (level, message) => onEvent(level, this.scrub(message)) }
      : options;
  }

  /** The text without any credential this server was given, nor a known secret shape. */
  scrub(text: string): string {
    let out = text;
    for (const secret of this.secrets) out = out.split(secret).join("[redacted]");
    return redactSecrets(out);
  }

  get state(): Status {
    return this.status;
  }

  tools(): McpToolInfo[] {
    return this.listed;
  }

  instructions(): string | undefined {
    const instructions = this.client?.getInstructions();
    return instructions === undefined ? undefined : plainServerText(instructions);
  }

  get callTimeoutMs(): number {
    return this.config.timeoutMs ?? defaultCallTimeoutMs;
  }

  start(): Promise<void> {
    if (this.starting) return this.starting;
    this.closing = false;
    this.starting = this.connect().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async connect(): Promise<void> {
    this.status = "starting";
    // The SDK (about 1 MB of JavaScript) loads when a server first starts, not with the application.
    const sdk = await import("@modelcontextprotocol/client");
    const client = new sdk.Client(
      { name: "mercury", version: this.options.version ?? "0.1.0" },
      { capabilities: {} },
    );
    const timeout = this.options.startupTimeoutMs ?? 20_000;
    try {
      const transport = await this.transport(sdk.StreamableHTTPClientTransport);
      transport.onclose = () => this.closed(client);
      // An oversized message (a stdio line, an HTTP answer or event) is dropped by the transport, and
      // the SDK does not fail the request behind it: the calls in flight fail here, not at their limit.
      transport.onerror = (error: Error) => {
        const stdioLimit = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(error.message);
        if (!error.message.includes(oversizedMessage) && !stdioLimit) return;
        const message = stdioLimit
          ? `MCP server ${this.name} ${oversizedMessage} ${stdioLimit[1]} bytes; it was cut off (the limit protects Mercury's memory)`
          : error.message;
        for (const fail of this.inFlight) fail(new McpError("protocol", message));
      };
      await client.connect(transport, { timeout });
      const listing = await client.listTools(undefined, { timeout });
      this.client = client;
      const listed = listing.tools
        .filter((tool) => this.included(tool.name))
        .map((tool) => ({
          name: tool.name,
          description: plainServerText(tool.description ?? ""),
          inputSchema: tool.inputSchema as Record<string, unknown>,
          readOnly: tool.annotations?.readOnlyHint === true,
        }));
      const warn = (message: string) => this.options.onEvent?.("warn", message);
      this.listed = this.pinnedTools(usableMcpTools(this.name, listed, warn), warn);
      this.status = "ready";
      this.lastError = null;
      this.failures = 0;
    } catch (error) {
      this.status = "down";
      const said = this.stderrTail.reason((text) => this.scrub(text));
      const message = this.scrub(error instanceof Error ? error.message : String(error));
      this.lastError = said === "" ? message : `${message} (its stderr: ${said})`;
      await client.close().catch((closeError: unknown) => {
        this.options.onEvent?.(
          "warn",
          `mcp ${this.name}: closing after a failed start: ${String(closeError)}`,
        );
      });
      throw new McpError(
        error instanceof McpError ? error.kind : "server-down",
        `MCP server ${this.name} did not start: ${this.lastError}`,
      );
    }
  }

  private async transport(
    HttpTransport: typeof StreamableHTTPClientTransport,
  ): Promise<StdioClientTransport | StreamableHTTPClientTransport> {
    if (this.config.url) {
      return new HttpTransport(new URL(this.config.url), {
        requestInit: { headers: httpHeaders(this.name, this.config, this.options.env) },
        fetch: boundedFetch(this.name),
      });
    }
    let launch = stdioLaunch(this.name, this.config, this.options.env, this.options.home);
    // `sandbox: false` is the user's explicit opt-out in config; every other server is wrapped.
    if (this.options.wrapLaunch && this.config.sandbox !== false)
      launch = this.options.wrapLaunch(launch, this.name);
    const [{ StdioClientTransport }, { deserializeMessage }] = await Promise.all([
      import("@modelcontextprotocol/client/stdio"),
      import("@modelcontextprotocol/client"),
    ]);
    const transport = new StdioClientTransport({
      command: launch.command,
      args: launch.args,
      env: launch.env,
      cwd: launch.cwd,
      stderr: "pipe",
    });
    this.stderrTail.clear();
    this.stderrTail.attach(transport.stderr);
    // The SDK's line buffer is quadratic in a message's size (stdio-buffer.ts); its field is swapped
    // for a linear one. The SDK is pinned; a version without the field keeps its own (slow) buffer.
    if ("_readBuffer" in transport)
      Object.assign(transport, { _readBuffer: new LinearReadBuffer(deserializeMessage) });
    else this.options.onEvent?.("warn", `mcp ${this.name}: the SDK's stdio buffer was not replaced`);
    return transport;
  }

  /**
   * The tool list seen at the first start is pinned for the life of this process. A restarted server
   * (after a crash, or one that crashed itself on purpose) cannot swap a tool the user approved for
   * another with the same name, flip a tool to "read-only" so a trusted server runs it without asking,
   * or add tools: a changed or new tool is left out, with the reason, until Mercury restarts.
   * `notifications/tools/list_changed` is not followed for the same reason.
   */
  private pinnedTools(tools: McpToolInfo[], warn: (message: string) => void): McpToolInfo[] {
    if (this.pinned === null) {
      this.pinned = new Map(tools.map((tool) => [tool.name, toolFingerprint(tool)]));
      for (const change of this.options.definitions?.reconcile(this.name, this.config, tools) ?? [])
        warn(
          `MCP server ${this.name}: tool "${change.tool}" ${change.what}; its standing approvals were withdrawn and the next call asks`,
        );
      return tools;
    }
    const pinned = this.pinned;
    return tools.filter((tool) => {
      const first = pinned.get(tool.name);
      if (first === toolFingerprint(tool)) return true;
      warn(
        first === undefined
          ? `MCP server ${this.name}: tool "${tool.name}" appeared after it was first listed; left out until Mercury restarts`
          : `MCP server ${this.name}: tool "${tool.name}" changed its description, arguments or read-only claim since it was first listed; left out until Mercury restarts`,
      );
      return false;
    });
  }

  /** What changed in a tool since a person last approved it, when they have not approved it since. */
  pendingChange(tool: string): string | null {
    return this.options.definitions?.pendingChange(this.name, tool) ?? null;
  }

  /** A person approved the tool as it is now. */
  acknowledgeChange(tool: string): void {
    this.options.definitions?.acknowledge(this.name, tool);
  }

  private included(tool: string): boolean {
    const include = this.config.tools?.include;
    if (include && !include.includes(tool)) return false;
    return !(this.config.tools?.exclude ?? []).includes(tool);
  }

  /** The transport closed: deliberate (close()) or a crash, which is reported and restarted. */
  private closed(client: Client): void {
    if (this.client !== null && this.client !== client) return;
    this.client = null;
    if (this.closing) {
      this.status = "stopped";
      return;
    }
    if (this.status !== "ready") return;
    this.status = "down";
    const said = this.stderrTail.reason((text) => this.scrub(text));
    this.lastError = said === "" ? "the server exited" : `the server exited: ${said}`;
    this.scheduleRestart(said === "" ? "stopped unexpectedly" : `stopped unexpectedly (${said})`);
  }

  /** Restarts after a doubling delay; a failed restart schedules the next one (until close()). */
  private scheduleRestart(why: string): void {
    if (this.closing || this.restartTimer) return;
    this.failures += 1;
    const { initial, max } = this.options.backoffMs ?? { initial: 1000, max: 60_000 };
    const delay = Math.min(max, initial * 2 ** (this.failures - 1));
    this.options.onEvent?.("warn", `MCP server ${this.name} ${why}; restarting in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.restarts += 1;
      this.start().then(
        () => this.options.onEvent?.("info", `MCP server ${this.name} restarted`),
        (error: unknown) => {
          this.options.onEvent?.("error", error instanceof Error ? error.message : String(error));
          this.scheduleRestart("could not be restarted");
        },
      );
    }, delay);
    this.restartTimer.unref();
  }

  /** Calls a tool; a time limit on every call, the signal cancels it (the server is told). */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<McpCallResult> {
    const client = this.client;
    if (!client || this.status !== "ready") {
      throw new McpError(
        "server-down",
        `MCP server ${this.name} is ${this.status}${this.lastError ? ` (${this.lastError})` : ""}; it is restarted automatically, try again shortly`,
      );
    }
    let fail: (error: Error) => void = () => undefined;
    const failed = new Promise<never>((_resolve, reject) => {
      fail = reject;
    });
    this.inFlight.add(fail);
    try {
      const result = await Promise.race([
        client.callTool({ name: tool, arguments: args }, { timeout: this.callTimeoutMs, signal }),
        failed,
      ]);
      return { isError: result.isError === true, text: renderContent(result) };
    } catch (error) {
      if (error instanceof McpError) throw new McpError(error.kind, this.scrub(error.message));
      const message = this.scrub(error instanceof Error ? error.message : String(error));
      if (signal.aborted)
        throw new McpError("cancelled", `cancelled: the task was stopped during ${tool} on ${this.name}`);
      if (/timed? ?out/i.test(message)) {
        throw new McpError(
          "timeout",
          `${tool} on MCP server ${this.name} did not answer within ${this.callTimeoutMs} ms`,
        );
      }
      if (this.status !== "ready" || /closed|EPIPE|exited/i.test(message)) {
        throw new McpError("server-down", `MCP server ${this.name} stopped during ${tool}: ${message}`);
      }
      throw new McpError("protocol", `${tool} on MCP server ${this.name} failed: ${message}`);
    } finally {
      this.inFlight.delete(fail);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const client = this.client;
    this.client = null;
    this.status = "stopped";
    await client?.close();
  }
}

/**
 * The credentials a server's config hands it: every header value, each environment value named as
 * `${NAME}`, and the URL's password and query values. Short values are left (they would blank
 * ordinary words out of every message).
 */
function configuredSecrets(config: McpServerConfig, env: NodeJS.ProcessEnv): string[] {
  const found = new Set<string>();
  const add = (value: string | undefined) => {
    if (value !== undefined && value.length >= 6) found.add(value);
  };
  for (const template of [...Object.values(config.headers ?? {}), ...Object.values(config.env ?? {})]) {
    for (const [, name] of template.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) add(env[name ?? ""]);
  }
  // A literal value in env is a credential as much as one in a header (a server's stderr can echo it).
  for (const value of [...Object.values(config.headers ?? {}), ...Object.values(config.env ?? {})])
    if (!value.includes("${")) add(value);
  if (config.url) {
    const url = new URL(config.url);
    add(url.password);
    for (const value of url.searchParams.values()) add(value);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** What a tool is, for the pin: the words the model reads, its arguments and its read-only claim. */
function toolFingerprint(tool: McpToolInfo): string {
  return JSON.stringify([tool.description, tool.inputSchema, tool.readOnly]);
}

/** Text parts joined; other content named, so the model knows something was left out. */
export function renderContent(result: { content?: unknown; structuredContent?: unknown }): string {
  const parts: string[] = [];
  const content = Array.isArray(result.content) ? result.content : [];
  for (const part of content as {
    type?: string;
    text?: string;
    mimeType?: string;
    resource?: { uri?: string; text?: string };
  }[]) {
    if (part.type === "text" && typeof part.text === "string") parts.push(part.text);
    else if (part.type === "resource" && typeof part.resource?.text === "string")
      parts.push(part.resource.text);
    else
      parts.push(
        `[${part.type ?? "unknown"} content${part.mimeType ? ` (${part.mimeType})` : ""} not shown]`,
      );
  }
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  return parts.join("\n");
}
