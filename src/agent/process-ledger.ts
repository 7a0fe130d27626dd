import { readdirSync, readFileSync } from "node:fs";
import { z } from "zod";
import type { SqliteDatabase } from "../storage/database.js";
import { type ProcessGroupRecorder, setProcessGroupRecorder } from "../tools/process-records.js";
import { type Clock, systemClock } from "./clock.js";

/** Fields of /proc/<pid>/stat we need: the process group and the start time (clock ticks since boot). */
export function procStat(pid: number): { pgrp: number; startTime: number; state: string } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    // Gone (or no /proc on this system): the caller treats it as "not running".
    return null;
  }
  // The command name may contain spaces and parentheses; the fields after the last ")" are fixed.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const pgrp = Number(fields[2]);
  const startTime = Number(fields[19]);
  const state = fields[0] ?? "";
  return Number.isFinite(pgrp) && Number.isFinite(startTime) ? { pgrp, startTime, state } : null;
}

const rowSchema = z.object({
  pgid: z.number().int(),
  owner_pid: z.number().int(),
  owner_start: z.number().int(),
  leader_start: z.number().int(),
});

/**
 * Records the process groups of running commands in the ledger (`task_processes`), keyed by the
 * Mercury process that owns them. At the next start, groups whose owner is dead are killed: a
 * `kill -9` of Mercury gives it no chance to stop its commands. A group is only signalled when its
 * members started after the recorded leader (the start time in /proc guards against a reused pgid).
 */
export class ProcessGroupLedger implements ProcessGroupRecorder {
  private readonly ownerPid = process.pid;
  private readonly ownerStart = procStat(process.pid)?.startTime ?? -1;

  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock = systemClock,
  ) {}

  started(pgid: number, command: string): void {
    const leaderStart = procStat(pgid)?.startTime ?? -1;
    this.database
      .prepare(
        `INSERT OR REPLACE INTO task_processes
           (pgid, owner_pid, owner_start, leader_start, task_id, command, started_at)
         VALUES (?, ?, ?, ?, NULL, ?, ?)`,
      )
      .run(
        pgid,
        this.ownerPid,
        this.ownerStart,
        leaderStart,
        command.slice(0, 500),
        this.clock.now().toISOString(),
      );
  }

  ended(pgid: number): void {
    this.database
      .prepare("DELETE FROM task_processes WHERE pgid = ? AND owner_pid = ?")
      .run(pgid, this.ownerPid);
  }

  /** Kills the groups left by Mercury processes that died; returns the pids signalled. */
  reapOrphans(): number[] {
    const rows = z
      .array(rowSchema)
      .parse(
        this.database.prepare("SELECT pgid, owner_pid, owner_start, leader_start FROM task_processes").all(),
      );
    const killed: number[] = [];
    for (const row of rows) {
      if (row.owner_pid !== this.ownerPid) {
        const owner = procStat(row.owner_pid);
        // Still alive (the same process, not a reused pid, not a zombie left by a kill -9 that nobody
        // reaped): its commands are its own business.
        if (owner && owner.startTime === row.owner_start && owner.state !== "Z") continue;
      } else if (row.owner_start === this.ownerStart) continue;
      if (row.leader_start >= 0) killed.push(...this.killGroupMembers(row.pgid, row.leader_start));
      this.database
        .prepare("DELETE FROM task_processes WHERE pgid = ? AND owner_pid = ?")
        .run(row.pgid, row.owner_pid);
    }
    return killed;
  }

  private killGroupMembers(pgid: number, leaderStart: number): number[] {
    let entries: string[];
    try {
      entries = readdirSync("/proc");
    } catch {
      return [];
    }
    const killed: number[] = [];
    for (const entry of entries) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
      const stat = procStat(pid);
      if (!stat || stat.pgrp !== pgid || stat.startTime < leaderStart) continue;
      try {
        process.kill(pid, "SIGKILL");
        killed.push(pid);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ESRCH")
          process.emitWarning(`could not stop leftover command process ${pid}: ${String(error)}`);
      }
    }
    return killed;
  }
}

/**
 * Kills the commands a killed Mercury left running (recorded in the ledger), then records this
 * process's own commands the same way. Called by `mercury run` and the daemon at start.
 */
export function adoptProcessGroups(database: SqliteDatabase, clock: Clock = systemClock): number[] {
  const groups = new ProcessGroupLedger(database, clock);
  const killed = groups.reapOrphans();
  setProcessGroupRecorder(groups);
  return killed;
}
