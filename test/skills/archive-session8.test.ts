import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { maxArchiveEntries, maxUnpackedBytes, readTarGz } from "../../src/skills/archive.js";

/** One ustar header block (and its data) built by hand, with the mode and type a test wants. */
function entry(name: string, content = "", options: { type?: string; mode?: string } = {}): Buffer {
  const data = Buffer.from(content);
  const header = Buffer.alloc(512);
  header.write(name, 0, 100);
  header.write(`${options.mode ?? "0000644"}\0`, 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(`${data.length.toString(8).padStart(11, "0")}\0`, 124);
  header.write("00000000000\0", 136);
  header.write("        ", 148);
  header.write(options.type ?? "0", 156);
  header.write("ustar\0", 257);
  header.write("00", 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return Buffer.concat([data.length === 0 ? header : Buffer.concat([header, data]), padding(data.length)]);
}

function padding(length: number): Buffer {
  return Buffer.alloc((512 - (length % 512)) % 512);
}

const archive = (...blocks: Buffer[]) => gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)]));
/** A pax record: its leading length counts the whole line, itself included. */
const pax = (record: string) => {
  let length = record.length + 3;
  while (`${length} ${record}\n`.length !== length) length += 1;
  return `${length} ${record}\n`;
};

describe("skill archives a hostile author builds (session 8)", () => {
  it("a pax or GNU long name cannot smuggle .. or an absolute path past the checks", () => {
    expect(() =>
      readTarGz(archive(entry("PaxHeader", pax("path=../../.bashrc"), { type: "x" }), entry("ok.txt", "x"))),
    ).toThrow(/climbs out/);
    expect(() =>
      readTarGz(
        archive(entry("PaxHeader", pax("path=/etc/cron.d/job"), { type: "x" }), entry("ok.txt", "x")),
      ),
    ).toThrow(/absolute/);
    expect(() =>
      readTarGz(archive(entry("././@LongLink", "skill/../../escape", { type: "L" }), entry("short", "x"))),
    ).toThrow(/climbs out/);
  });

  it("hard links, devices and FIFOs refuse the archive", () => {
    for (const type of ["1", "3", "4", "6"]) {
      expect(() => readTarGz(archive(entry("s/thing", "", { type })))).toThrow(/skills may only contain/);
    }
  });

  it("a setuid, executable entry comes out as bytes only: no mode travels to the written file", () => {
    const files = readTarGz(archive(entry("s/scripts/run.sh", "#!/bin/sh\n", { mode: "0004755" })));
    expect(files).toEqual([{ path: "s/scripts/run.sh", data: Buffer.from("#!/bin/sh\n") }]);
  });

  it("a gzip bomb stops at the unpacked limit instead of filling memory", () => {
    const bomb = gzipSync(Buffer.alloc(maxUnpackedBytes + 1024 * 1024));
    expect(bomb.length).toBeLessThan(maxUnpackedBytes / 100);
    expect(() => readTarGz(bomb)).toThrow(/larger than/);
  });

  it("more entries than the limit refuse the archive", () => {
    const many = Array.from({ length: maxArchiveEntries + 1 }, (_, index) => entry(`s/f${index}`, ""));
    expect(() => readTarGz(archive(...many))).toThrow(/more than/);
  });

  it("a size field that is not octal (base-256, garbage) is refused as corrupt", () => {
    const header = entry("s/file", "");
    header.write("\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80", 124, "latin1");
    expect(() => readTarGz(archive(header))).toThrow(/corrupt/);
  });
});
