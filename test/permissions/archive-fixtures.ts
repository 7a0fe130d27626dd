import { gzipSync } from "node:zlib";

/**
 * Small archives built in memory for the pass-11 extraction attacks: a tar (ustar headers) and a zip
 * (stored members and a central directory), enough for the engine's member reader.
 */

export interface FixtureMember {
  name: string;
  /** A symbolic link member's target. */
  link?: string;
  text?: string;
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

export function tarArchive(members: FixtureMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const member of members) {
    const data = Buffer.from(member.text ?? "");
    const header = Buffer.alloc(512);
    header.write(member.name, 0, 100, "utf8");
    header.write(octal(member.link ? 0o777 : 0o644, 8), 100, "latin1");
    header.write(octal(0, 8), 108, "latin1");
    header.write(octal(0, 8), 116, "latin1");
    header.write(octal(member.link ? 0 : data.length, 12), 124, "latin1");
    header.write(octal(0, 12), 136, "latin1");
    header.write("        ", 148, "latin1");
    header.write(member.link ? "2" : "0", 156, "latin1");
    if (member.link) header.write(member.link, 157, 100, "utf8");
    header.write("ustar\0", 257, "latin1");
    header.write("00", 263, "latin1");
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    blocks.push(header);
    if (!member.link && data.length > 0) {
      blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
    }
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

export function tgzArchive(members: FixtureMember[]): Buffer {
  return gzipSync(tarArchive(members));
}

export function zipArchive(members: FixtureMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const member of members) {
    const name = Buffer.from(member.name);
    const data = Buffer.from(member.link ?? member.text ?? "");
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x031e, 4);
    central.writeUInt16LE(10, 6);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(((member.link ? 0o120777 : 0o100644) << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
