import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { HtmlToTextOptions } from "html-to-text";

/**
 * HTML to readable text with html-to-text. The library needs about 1 ms per KB of HTML, so a 2 MB page
 * would stall the event loop (and with it the stall watchdog, Telegram and the CLI) for seconds: pages
 * above a small size are converted in a worker thread.
 */

const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: "img", format: "skip" },
    { selector: "a", options: { hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    { selector: "head", format: "skip" },
  ],
};

/** Below this, the conversion costs less than spawning a worker. */
export const INLINE_HTML_CHARS = 32 * 1024;

// Plain CommonJS so the worker runs the same in tests (TypeScript sources) and in the built package.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { convert } = require(workerData.modulePath);
try {
  parentPort.postMessage({ ok: true, text: convert(workerData.html, workerData.options) });
} catch (error) {
  parentPort.postMessage({ ok: false, error: String(error && error.stack || error) });
}
`;

function tidy(text: string): string {
  return text.replace(/\n{3,}/g, "\n\n").trim();
}

// Loaded on the first page converted, not with the tools (about 370 KB of JavaScript with its parser).
let library: typeof import("html-to-text") | undefined;

export function htmlToTextSync(html: string): string {
  library ??= createRequire(import.meta.url)("html-to-text") as typeof import("html-to-text");
  return tidy(library.convert(html, OPTIONS));
}

export async function htmlToText(html: string, signal: AbortSignal): Promise<string> {
  if (html.length <= INLINE_HTML_CHARS) return htmlToTextSync(html);
  signal.throwIfAborted();
  const modulePath = createRequire(import.meta.url).resolve("html-to-text");
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { modulePath, html, options: OPTIONS },
  });
  try {
    return await new Promise<string>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      worker.once("message", (message: unknown) => {
        signal.removeEventListener("abort", onAbort);
        const result = message as { ok: boolean; text?: string; error?: string };
        if (result.ok && typeof result.text === "string") resolve(tidy(result.text));
        else reject(new Error(`Converting the page to text failed: ${result.error ?? "no result"}`));
      });
      worker.once("error", (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(new Error(`Converting the page to text failed: ${error.message}`));
      });
      worker.once("exit", (code) => {
        signal.removeEventListener("abort", onAbort);
        reject(new Error(`The HTML conversion worker exited early (code ${code}).`));
      });
    });
  } finally {
    await worker.terminate();
  }
}
