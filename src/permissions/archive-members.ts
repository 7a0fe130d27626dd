import { closeSync, openSync, readSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { gunzipSync } from "node:zlib";

/**
 * Pass 11: the member names of an archive, read without extracting it, so `tar -x`, `unzip`,
 * `bsdtar -x` are judged by where their files land (a member `.git/hooks/pre-commit`,
 * `.vscode/tasks.json` or `build.rs` is a write there). Reads tar (plain or gzip, ustar prefixes, GNU
 * long names, pax `path`/`linkpath`) and zip (central directory). Null when the archive cannot be read
 * (missing, too large, another format): then where its files land is unknown.
 */

export interface ArchiveMember {
  name: string;
  /** A symbolic or hard link member's target: later members can be written through it. */
  link?: string;
}

const maxArchiveBytes = 32 * 1024 * 1024;
const maxMembers = 20_000;

export function archiveMembers(path: string, cwd: string): ArchiveMember[] | null {
  const data = readSmallFile(isAbsolute(path) ? path : resolve(cwd, path));
  if (data === null) return null;
  if (data.length >= 4 && data.readUInt32LE(0) === 0x04034b50) return zipMembers(data);
  if (data.length >= 4 && data.readUInt32LE(0) === 0x06054b50) return [];
  let tar = data;
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) {
    try {
      tar = gunzipSync(data, { maxOutputLength: maxArchiveBytes });
    } catch {
      // Corrupt or larger than the cap: not readable here.
      return null;
    }
  }
  return tarMembers(tar);
}

function readSmallFile(path: string): Buffer | null {
  try {
    const stats = statSync(path);
    if (!stats.isFile() || stats.size > maxArchiveBytes) return null;
    const buffer = Buffer.alloc(stats.size);
    const fd = openSync(path, "r");
    try {
      readSync(fd, buffer, 0, stats.size, 0);
    } finally {
      closeSync(fd);
    }
    return buffer;
  } catch {
    // Missing or unreadable: the caller treats the archive as unknown.
    return null;
  }
}

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString("utf8");
}

function tarMembers(data: Buffer): ArchiveMember[] | null {
  const members: ArchiveMember[] = [];
  let offset = 0;
  let longName: string | null = null;
  let longLink: string | null = null;
  while (offset + 512 <= data.length && members.length < maxMembers) {
    const header = data.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) return members;
    if (header.toString("latin1", 257, 262) !== "ustar" && !validChecksum(header)) return null;
    const size = Number.parseInt(text(header, 124, 12).trim() || "0", 8);
    if (!Number.isFinite(size) || size < 0) return null;
    const type = String.fromCharCode(header[156] ?? 0);
    const body = data.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "L") longName = body.toString("utf8").replace(/\0+$/, "");
    else if (type === "K") longLink = body.toString("utf8").replace(/\0+$/, "");
    else if (type === "x") {
      for (const record of body.toString("utf8").split("\n")) {
        const match = /^\d+ (path|linkpath)=(.*)$/.exec(record);
        if (match?.[1] === "path") longName = match[2] ?? null;
        if (match?.[1] === "linkpath") longLink = match[2] ?? null;
      }
    } else if (type !== "g") {
      const prefix = header.toString("latin1", 257, 262) === "ustar" ? text(header, 345, 155) : "";
      const short = text(header, 0, 100);
      const name = longName ?? (prefix ? `${prefix}/${short}` : short);
      const link = type === "1" || type === "2" ? (longLink ?? text(header, 157, 100)) : undefined;
      members.push(link === undefined ? { name } : { name, link });
      longName = null;
      longLink = null;
    }
  }
  return members;
}

/** A pre-POSIX tar header: its checksum field matches the sum of its bytes (with the field as spaces). */
function validChecksum(header: Buffer): boolean {
  const stored = Number.parseInt(text(header, 148, 8).trim(), 8);
  let sum = 0;
  for (let index = 0; index < 512; index++) sum += index >= 148 && index < 156 ? 32 : (header[index] ?? 0);
  return stored === sum;
}

function zipMembers(data: Buffer): ArchiveMember[] | null {
  // The end-of-central-directory record sits in the last 64 KiB (after an optional comment).
  let end = -1;
  for (let index = data.length - 22; index >= Math.max(0, data.length - 65_557); index--) {
    if (data.readUInt32LE(index) === 0x06054b50) {
      end = index;
      break;
    }
  }
  if (end < 0) return null;
  const count = data.readUInt16LE(end + 10);
  let offset = data.readUInt32LE(end + 16);
  const members: ArchiveMember[] = [];
  for (let index = 0; index < Math.min(count, maxMembers); index++) {
    if (offset + 46 > data.length || data.readUInt32LE(offset) !== 0x02014b50) return null;
    const nameLength = data.readUInt16LE(offset + 28);
    const extraLength = data.readUInt16LE(offset + 30);
    const commentLength = data.readUInt16LE(offset + 32);
    const mode = data.readUInt32LE(offset + 38) >>> 16;
    const name = data.toString("utf8", offset + 46, offset + 46 + nameLength);
    // A Unix symlink member (S_IFLNK): its data is the target, read from the local header.
    const symlink = (mode & 0o170000) === 0o120000;
    members.push(symlink ? { name, link: zipLinkTarget(data, data.readUInt32LE(offset + 42)) } : { name });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return members;
}

function zipLinkTarget(data: Buffer, local: number): string {
  if (local + 30 > data.length || data.readUInt32LE(local) !== 0x04034b50) return "?";
  // Stored (method 0) targets only; a compressed one is reported as unknown ("?").
  if (data.readUInt16LE(local + 8) !== 0) return "?";
  const size = data.readUInt32LE(local + 18);
  const start = local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28);
  return data.toString("utf8", start, start + size);
}
