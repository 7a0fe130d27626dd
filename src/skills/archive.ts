import { gunzipSync } from "node:zlib";

export class ArchiveError extends Error {
  override name = "ArchiveError";
}

export interface ArchiveFile {
  /** Relative, normalized, never absolute and never with `..`. */
  path: string;
  data: Buffer;
}

/** Unpacked size allowed at most (a skill is text and a few small files). */
export const maxUnpackedBytes = 20 * 1024 * 1024;
export const maxArchiveEntries = 2000;

/**
 * Reads a .tar.gz in memory, strictly: only regular files and folders; a link, device or any
 * path that is absolute or climbs out (`..`) refuses the whole archive instead of being skipped.
 */
export function readTarGz(compressed: Buffer): ArchiveFile[] {
  let tar: Buffer;
  try {
    tar = gunzipSync(compressed, { maxOutputLength: maxUnpackedBytes });
  } catch (error) {
    throw new ArchiveError(
      `not a readable .tar.gz (or larger than ${maxUnpackedBytes} bytes unpacked): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const files: ArchiveFile[] = [];
  let offset = 0;
  let longName: string | null = null;
  let entries = 0;
  while (offset + 512 <= tar.length) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    if (++entries > maxArchiveEntries) throw new ArchiveError(`more than ${maxArchiveEntries} entries`);
    const field = (start: number, length: number) => {
      const raw = header.subarray(start, start + length);
      const end = raw.indexOf(0);
      return raw.subarray(0, end === -1 ? length : end).toString("utf8");
    };
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    if (!Number.isFinite(size) || size < 0) throw new ArchiveError("corrupt entry size");
    const type = field(156, 1) || "0";
    const prefix = field(345, 155);
    let name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
    longName = null;
    const dataStart = offset + 512;
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / 512) * 512;
    if (type === "L") {
      longName = data.toString("utf8").replace(/\0+$/, "");
      continue;
    }
    if (type === "x") {
      const path = /\d+ path=([^\n]*)\n/.exec(data.toString("utf8"));
      if (path?.[1]) longName = path[1];
      continue;
    }
    if (type === "g") continue;
    name = safeRelative(name);
    if (type === "5") continue;
    if (type !== "0" && type !== "7") {
      throw new ArchiveError(
        `"${name}" is a ${type === "1" ? "hard link" : type === "2" ? "symbolic link" : `special entry (type ${type})`}; skills may only contain files and folders`,
      );
    }
    if (name === "") continue;
    files.push({ path: name, data: Buffer.from(data) });
  }
  return files;
}

/** Normalizes an archive path; throws on an absolute path or one that leaves the archive. */
export function safeRelative(raw: string): string {
  const path = raw.replace(/\\/g, "/");
  if (path.startsWith("/") || /^[a-zA-Z]:/.test(path)) throw new ArchiveError(`"${raw}" is an absolute path`);
  const parts: string[] = [];
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") throw new ArchiveError(`"${raw}" climbs out of the archive with ..`);
    if (part.includes("\0")) throw new ArchiveError(`"${raw}" holds a NUL byte`);
    parts.push(part);
  }
  return parts.join("/");
}
