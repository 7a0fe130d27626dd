import { z } from "zod";
import type { Resolver } from "../permissions/network.js";
import type { ToolDefinition } from "./types.js";

export type { DownloadSettings, Page } from "./web-fetch-page.js";

export interface WebFetchOptions {
  /** DNS resolver; the default asks the system. Tests inject one to simulate rebinding. */
  resolver?: Resolver;
  /**
   * Exact address:port pairs that may be contacted even though they are not public. Only for tests
   * that run a server on 127.0.0.1; another port on the same address stays refused.
   */
  allowForTests?: { address: string; port: number }[];
  /** Response body cap after decompression; default 2 MB. */
  maxBytes?: number;
  /** Whole fetch including redirects; default 20 s. */
  timeoutMs?: number;
  maxRedirects?: number;
  /** Characters of text returned per call; default 40000. */
  maxChars?: number;
  /** Extra trusted CA certificates (PEM), e.g. a private CA or a test server's; system CAs still apply. */
  ca?: string;
}

const inputSchema = z.object({
  url: z.string().min(1).describe("An http:// or https:// URL."),
  offset: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("Character position in the page text to start from, to read a part an earlier call omitted."),
});

export type WebFetchInput = z.infer<typeof inputSchema>;

export function createWebFetchTool(options: WebFetchOptions = {}): ToolDefinition<WebFetchInput> {
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxRedirects = options.maxRedirects ?? 5;
  const maxChars = options.maxChars ?? 40_000;
  return {
    name: "web_fetch",
    description:
      "Fetch a public web page over http(s) and return its title, final URL, status and readable text (HTML is " +
      `converted to text). Private, loopback and cloud-metadata addresses are refused. Limits: ${maxBytes} bytes ` +
      `downloaded, ${timeoutMs} ms, ${maxRedirects} redirects, ${maxChars} characters of text per call (longer ` +
      "text keeps its beginning and end; fetch again with offset to read the middle).",
    inputSchema,
    mutating: false,
    async execute(input, context) {
      // The HTTP client, the address checks and the HTML converter load with the first fetch
      // (web-fetch-page.ts): a task that never fetches a page never parses them.
      const { fetchAsTool } = await import("./web-fetch-page.js");
      return fetchAsTool(input, context, { ...options, maxBytes, timeoutMs, maxRedirects, maxChars });
    },
  };
}
