import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  AlreadyRunningError,
  acquireLock,
  isAlive,
  processStartTime,
  readLiveLock,
} from "../../src/daemon/lock.js";
import { copyTruncateIfLarge, rotateIfLarge } from "../../src/daemon/log-rotation.js";
import { LineReader } from "../../src/daemon/protocol.js";

function lockPath() {
  return join(mkdtempSync(join(tmpdir(), "mercury-lock-")), "mercury.lock");
}

describe("instance lock", () => {
  it("is exclusive while held and free after release", () => {
    const path = lockPath();
    const held = acquireLock(path, "1.0.0");
    expect(readLiveLock(path)?.pid).toBe(process.pid);
    expect(() => acquireLock(path, "1.0.0")).toThrow(new AlreadyRunningError(process.pid).message);
    held.release();
    expect(existsSync(path)).toBe(false);
    acquireLock(path, "1.0.0").release();
  });

  it("takes over the lock of a dead process", async () => {
    const path = lockPath();
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
    const pid = child.pid ?? 0;
    writeFileSync(
      path,
      JSON.stringify({ pid, procStart: processStartTime(pid), startedAt: "x", version: "0" }),
    );
    expect(readLiveLock(path)?.pid).toBe(pid);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.on("exit", resolve));
    expect(isAlive(pid)).toBe(false);
    const held = acquireLock(path, "1.0.0");
    expect(JSON.parse(readFileSync(path, "utf8")).pid).toBe(process.pid);
    held.release();
  });

  it("treats a live pid with another start time as reused (stale), and a torn file as stale", () => {
    const path = lockPath();
    writeFileSync(path, JSON.stringify({ pid: process.pid, procStart: "1", startedAt: "x", version: "0" }));
    if (processStartTime(process.pid) !== null) {
      expect(readLiveLock(path)).toBeNull();
      acquireLock(path, "1.0.0").release();
    }
    writeFileSync(path, '{"pid": 12');
    expect(readLiveLock(path)).toBeNull();
    acquireLock(path, "1.0.0").release();
  });

  it("release never removes a lock another process took over", () => {
    const path = lockPath();
    const held = acquireLock(path, "1.0.0");
    writeFileSync(path, JSON.stringify({ pid: 1, procStart: null, startedAt: "x", version: "0" }));
    held.release();
    expect(existsSync(path)).toBe(true);
  });
});

describe("log rotation", () => {
  it("rotates a large log and keeps a bounded number of old files", () => {
    const path = join(mkdtempSync(join(tmpdir(), "mercury-log-")), "daemon.log");
    for (let round = 1; round <= 4; round += 1) {
      writeFileSync(path, `round ${round} `.repeat(200));
      expect(rotateIfLarge(path, 100, 2)).toBe(true);
    }
    expect(readFileSync(`${path}.1`, "utf8")).toContain("round 4");
    expect(readFileSync(`${path}.2`, "utf8")).toContain("round 3");
    expect(existsSync(`${path}.3`)).toBe(false);
    writeFileSync(path, "small");
    expect(rotateIfLarge(path, 100, 2)).toBe(false);
  });

  it("copy-truncate keeps the writer's descriptor valid", () => {
    const path = join(mkdtempSync(join(tmpdir(), "mercury-log-")), "daemon.log");
    writeFileSync(path, "x".repeat(500));
    expect(copyTruncateIfLarge(path, 100, 3)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("");
    expect(readFileSync(`${path}.1`, "utf8")).toHaveLength(500);
  });
});

describe("protocol line reader", () => {
  it("splits lines across chunks and refuses an endless line", () => {
    const lines: string[] = [];
    const reader = new LineReader((line) => lines.push(line), 64);
    reader.push('{"a":');
    reader.push('1}\n\n{"b":2}\n');
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    expect(() => reader.push("y".repeat(100))).toThrow(/exceeded 64 bytes/);
  });
});
