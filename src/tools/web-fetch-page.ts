import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import tls from "node:tls";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { NetworkRefusal, type Resolver, resolvePublicAddress } from "../permissions/network.js";
import { htmlToText, htmlToTextSync } from "./html-text.js";
import { truncateHeadTail } from "./output-limits.js";
import type { AuthorizationResult, ToolContext, ToolResult } from "./types.js";
import type { WebFetchInput, WebFetchOptions } from "./web-fetch.js";

export interface Page {
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Buffer;
  cut: boolean;
}

/** web_fetch's call (web-fetch.ts holds its declaration): the fetch, under the time cap and the task's abort. */
export async function fetchAsTool(
  input: WebFetchInput,
  context: ToolContext,
  options: WebFetchOptions & { maxBytes: number; timeoutMs: number; maxRedirects: number; maxChars: number },
): Promise<ToolResult> {
  const { maxBytes, timeoutMs, maxRedirects, maxChars } = options;
  // Built by hand, not with AbortSignal.any/timeout: Node holds those weakly, and a fetch waiting on
  // a DNS answer that never comes could have its timeout collected and hang for good.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error("web_fetch time limit")), timeoutMs);
  const onTaskAbort = () => controller.abort(context.signal.reason);
  if (context.signal.aborted) onTaskAbort();
  else context.signal.addEventListener("abort", onTaskAbort, { once: true });
  const signal = controller.signal;
  const hops: string[] = [];
  try {
    const page = await fetchFollowing(
      input.url,
      (url, redirectFrom) =>
        context.authorize({ kind: "network", url, ...(redirectFrom ? { redirectFrom } : {}) }),
      signal,
      hops,
      {
        ...options,
        maxBytes,
        maxRedirects,
      },
    );
    return await render(page, hops, input.offset ?? 0, maxChars, maxBytes, signal);
  } catch (error) {
    if (context.signal.aborted)
      return { ok: false, error: "Cancelled: the task was aborted during web_fetch." };
    if (signal.aborted)
      return { ok: false, error: `Timed out: ${input.url} did not answer within ${timeoutMs} ms.` };
    if (error instanceof NetworkRefusal)
      return { ok: false, error: `${error.message} [rule: ${error.rule}]` };
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", onTaskAbort);
  }
}

export interface DownloadSettings {
  resolver?: Resolver | undefined;
  allowForTests?: { address: string; port: number }[] | undefined;
  maxBytes: number;
  maxRedirects: number;
  ca?: string | undefined;
}

/**
 * Fetches a URL through the SSRF guard: each hop is authorized, resolved, checked as public and
 * connected to the checked address (no DNS rebinding). Shared by web_fetch and skill installation.
 */
export async function fetchFollowing(
  raw: string,
  /** `redirectFrom`: a redirect hop continues this fetch; the page it came from has not entered the task. */
  authorize: (url: string, redirectFrom?: string) => Promise<AuthorizationResult>,
  signal: AbortSignal,
  hops: string[],
  settings: DownloadSettings,
): Promise<Page> {
  const { maxRedirects, maxBytes } = settings;
  let url = parseHttpUrl(raw);
  for (let hop = 0; ; hop++) {
    const previous = hops[hops.length - 1];
    const decision = await authorize(url.href, hop > 0 ? previous : undefined);
    if (!decision.allowed) {
      throw new Error(
        `Permission denied: fetching ${url.href} was refused (${decision.rule}): ${decision.reason}`,
      );
    }
    // Checked on every hop: a public page may redirect to http://169.254.169.254/.
    const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
    // getaddrinfo cannot be cancelled; stop waiting for it when the time cap or an abort hits.
    const pinned = await untilAborted(
      resolvePublicAddress(url.hostname, {
        resolver: settings.resolver,
        allow: (address) =>
          (settings.allowForTests ?? []).some((a) => a.address === address && a.port === port),
      }),
      signal,
    );
    const result = await request(url, pinned, port, signal, maxBytes, settings.ca);
    if ("location" in result) {
      if (hop >= maxRedirects)
        throw new Error(`Too many redirects (more than ${maxRedirects}) starting at ${raw}.`);
      hops.push(url.href);
      url = parseHttpUrl(new URL(result.location, url).href);
      continue;
    }
    return result;
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${JSON.stringify(raw)} is not a valid URL; give a full http:// or https:// address.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`Only http and https URLs can be fetched, not ${url.protocol}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw new Error("URLs with a user name or password are not fetched; credentials do not belong in URLs.");
  }
  return url;
}

function request(
  url: URL,
  pinned: { address: string; family: 4 | 6 },
  port: number,
  signal: AbortSignal,
  maxBytes: number,
  ca: string | undefined,
): Promise<Page | { location: string }> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // Connect to the address that was checked, whatever DNS would say now (no rebinding between check and use).
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
  const isName = !host.includes(":") && !/^[\d.]+$/.test(host);
  const common = {
    host,
    port,
    path: `${url.pathname}${url.search}`,
    method: "GET",
    headers: {
      "user-agent": "Mercury-Agent/0.1 (web_fetch)",
      accept: "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5",
      "accept-encoding": "gzip, deflate, br",
    },
    lookup,
    signal,
    agent: false as const,
  };
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && location) {
        res.resume();
        resolve({ location });
        return;
      }
      readBody(res, maxBytes).then(
        ({ body, cut }) => {
          if (cut) req.destroy();
          resolve({
            url: url.href,
            status,
            statusText: res.statusMessage ?? "",
            contentType: res.headers["content-type"] ?? "",
            body,
            cut,
          });
        },
        (error: unknown) => reject(error),
      );
    };
    const req =
      url.protocol === "https:"
        ? https.request(
            {
              ...common,
              ...(isName ? { servername: host } : {}),
              ...(ca ? { ca: [...tls.rootCertificates, ca] } : {}),
            },
            onResponse,
          )
        : http.request(common, onResponse);
    req.on("error", (error) => reject(new Error(`Could not fetch ${url.href}: ${error.message}`)));
    req.end();
  });
}

/** Reads at most `maxBytes` of the decoded body; a compressed bomb is cut at the same limit. */
function readBody(res: IncomingMessage, maxBytes: number): Promise<{ body: Buffer; cut: boolean }> {
  const encoding = String(res.headers["content-encoding"] ?? "identity").toLowerCase();
  let stream: Readable = res;
  if (encoding === "gzip" || encoding === "x-gzip") stream = res.pipe(createGunzip());
  else if (encoding === "deflate") stream = res.pipe(createInflate());
  else if (encoding === "br") stream = res.pipe(createBrotliDecompress());
  else if (encoding !== "identity") {
    res.resume();
    return Promise.reject(new Error(`The server sent an unsupported content-encoding: ${encoding}`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    stream.on("data", (chunk: Buffer) => {
      if (done) return;
      const room = maxBytes - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        done = true;
        stream.destroy();
        res.destroy();
        resolve({ body: Buffer.concat(chunks), cut: true });
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    stream.on("end", () => {
      if (done) return;
      done = true;
      resolve({ body: Buffer.concat(chunks), cut: false });
    });
    stream.on("error", (error) => {
      if (done) return;
      done = true;
      reject(new Error(`Reading the response failed: ${error.message}`));
    });
    res.on("error", (error) => {
      if (done) return;
      done = true;
      reject(new Error(`Reading the response failed: ${error.message}`));
    });
  });
}

const TEXTUAL =
  /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml)|[^;]*\+(json|xml))/i;

async function render(
  page: Page,
  hops: string[],
  offset: number,
  maxChars: number,
  maxBytes: number,
  signal: AbortSignal,
): Promise<ToolResult> {
  const mime = (page.contentType.split(";")[0] ?? "").trim().toLowerCase();
  if (mime !== "" && !TEXTUAL.test(mime)) {
    return {
      ok: false,
      error: `${page.url} is ${mime}, not text; web_fetch only returns text and HTML pages.`,
    };
  }
  const notes: string[] = [];
  const charset = /charset=["']?([^;"'\s]+)/i.exec(page.contentType)?.[1] ?? "utf-8";
  let decoded: string;
  try {
    decoded = new TextDecoder(charset).decode(page.body);
  } catch {
    decoded = new TextDecoder("utf-8").decode(page.body);
    notes.push(`unknown charset ${charset}; decoded as UTF-8`);
  }
  const isHtml =
    mime === "text/html" || mime === "application/xhtml+xml" || (mime === "" && /<html/i.test(decoded));
  const title = isHtml ? extractTitle(decoded) : "";
  const text = isHtml ? await htmlToText(decoded, signal) : decoded;
  if (page.cut) notes.push(`download stopped at the ${maxBytes}-byte limit; the end of the page is missing`);
  if (offset > 0 && offset >= text.length) {
    return { ok: false, error: `offset ${offset} is past the end of the text (${text.length} characters).` };
  }
  const window = text.slice(offset);
  const shown = truncateHeadTail(window, {
    maxChars,
    hint: (headChars) => `Use web_fetch with offset=${offset + headChars} to read the omitted part`,
  });
  const header = [
    `url: ${page.url}`,
    `status: ${page.status} ${page.statusText}`.trimEnd(),
    ...(title ? [`title: ${title}`] : []),
    `content-type: ${mime || "unknown"}`,
    ...(hops.length > 0 ? [`redirected from: ${hops.join(" -> ")}`] : []),
    `text: characters ${offset}-${offset + window.length} of ${text.length}`,
    ...notes.map((note) => `note: ${note}`),
  ].join("\n");
  if (page.status >= 400) {
    return {
      ok: false,
      error: `HTTP ${page.status} ${page.statusText} from ${page.url}.\n${header}\n\n${shown.text.slice(0, 2000)}`,
    };
  }
  return { ok: true, output: `${header}\n\n${shown.text}` };
}

function extractTitle(html: string): string {
  const raw = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1];
  return raw ? htmlToTextSync(raw.slice(0, 2000)).replace(/\s+/g, " ").trim() : "";
}
