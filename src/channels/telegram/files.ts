import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Api } from "grammy";

/** The Bot API's own getFile limit; larger files cannot be downloaded by a bot at all. */
export const DEFAULT_MAX_FILE_BYTES = 20 * 1024 * 1024;

export class AttachmentTooLargeError extends Error {
  override name = "AttachmentTooLargeError";
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(
      `the file is ${formatMegabytes(size)}; the limit is ${formatMegabytes(limit)}. ` +
        "Send a smaller file, or put it into the workspace directly and tell me its path.",
    );
  }
}

export function formatMegabytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** Keeps only a plain file name: no directories, no dot-files, nothing a shell would trip over. */
export function safeFileName(name: string, fallback: string): string {
  const cleaned = basename(name)
    .replace(/[^\w.\- ]+/g, "_")
    .replace(/^[.\s]+/, "")
    .slice(0, 120);
  return cleaned === "" ? fallback : cleaned;
}

export interface DownloadRequest {
  fileId: string;
  name: string;
  /** Size Telegram announced, when it did; checked before downloading. */
  size: number | undefined;
}

/**
 * Downloads a Telegram file into `<workspace>/telegram-uploads/`, enforcing the size limit on the
 * announced size, the Content-Length and the bytes actually received.
 */
export async function downloadAttachment(options: {
  api: Api;
  apiRoot: string;
  token: string;
  workspaceDir: string;
  maxBytes: number;
  request: DownloadRequest;
  signal?: AbortSignal;
}): Promise<string> {
  const { request, maxBytes } = options;
  if (request.size !== undefined && request.size > maxBytes)
    throw new AttachmentTooLargeError(request.size, maxBytes);
  const file = await options.api.getFile(request.fileId);
  if (file.file_size !== undefined && file.file_size > maxBytes)
    throw new AttachmentTooLargeError(file.file_size, maxBytes);
  if (file.file_path === undefined)
    throw new Error("Telegram returned no file_path for this file; send it again.");
  const url = `${options.apiRoot}/file/bot${options.token}/${file.file_path}`;
  const response = await fetch(url, options.signal === undefined ? {} : { signal: options.signal });
  if (!response.ok || response.body === null) {
    throw new Error(`downloading the file failed: HTTP ${response.status} ${response.statusText}`);
  }
  const announced = Number(response.headers.get("content-length") ?? Number.NaN);
  if (Number.isFinite(announced) && announced > maxBytes)
    throw new AttachmentTooLargeError(announced, maxBytes);
  const directory = join(options.workspaceDir, "telegram-uploads");
  await mkdir(directory, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const extension = extname(file.file_path);
  let name = safeFileName(request.name, `file${extension}`);
  if (extname(name) === "" && extension !== "") name += extension;
  const target = join(directory, `${stamp}-${name}`);
  let received = 0;
  const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
  body.on("data", (chunk: Buffer) => {
    received += chunk.length;
    if (received > maxBytes) body.destroy(new AttachmentTooLargeError(received, maxBytes));
  });
  try {
    await pipeline(body, createWriteStream(target, { flags: "wx", mode: 0o600 }));
  } catch (error) {
    await rm(target, { force: true });
    throw error;
  }
  return target;
}
