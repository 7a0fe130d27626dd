import { execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], {
    cwd,
    encoding: "utf8",
  });
}

async function runTaskThatEdits(home: string, cwd: string): Promise<{ taskId: string; outcome: string }> {
  const fake = await server({
    replies: [
      { toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "changed by the task\n" } }] },
      { toolCalls: [{ name: "write_file", input: { path: "new.txt", content: "new\n" } }] },
      { text: "Done." },
    ],
  });
  const result = await runCli(["run", "edit notes", "--json", "--yes"], {
    home,
    cwd,
    env: providerEnv(fake.url),
  });
  return JSON.parse(result.stdout);
}

describe("mercury undo (built binary)", { timeout: 120_000 }, () => {
  it("outside git: shows the diff, restores the changed file and removes the created one", async () => {
    const { home, workspace } = makeHome(fastRetryConfig);
    writeFileSync(join(workspace, "notes.txt"), "original\n");
    const task = await runTaskThatEdits(home, workspace);
    expect(task.outcome).toBe("completed");
    const undo = await runCli(["undo", "--yes"], { home });
    expect(undo.code).toBe(0);
    expect(undo.stdout).toContain("-original");
    expect(undo.stdout).toContain("+changed by the task");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(workspace, "new.txt"))).toBe(false);
    expect(undo.stderr).toContain("removed new.txt, restored notes.txt");
    const again = await runCli(["undo", task.taskId, "--yes"], { home });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already undone");
  });

  it("in git: restores tracked files, and without --yes on a pipe restores nothing", async () => {
    const { home, workspace } = makeHome(fastRetryConfig);
    writeFileSync(join(workspace, "notes.txt"), "original\n");
    writeFileSync(
      join(workspace, "package.json"),
      JSON.stringify({ name: "p", scripts: { test: "exit 0" } }),
    );
    git(workspace, "init", "-q");
    git(workspace, "add", "-A");
    git(workspace, "commit", "-q", "-m", "start");
    const task = await runTaskThatEdits(home, workspace);
    expect(task.outcome).toBe("completed");
    const asked = await runCli(["undo", task.taskId.slice(0, 8)], { home });
    expect(asked.code).toBe(2);
    expect(asked.stdout).toContain("+changed by the task");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("changed by the task\n");
    const undo = await runCli(["undo", task.taskId.slice(0, 8), "--yes"], { home });
    expect(undo.code).toBe(0);
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(workspace, "new.txt"))).toBe(false);
    expect(git(workspace, "status", "--porcelain")).toBe("");
  });

  it("/undo in chat shows the diff, asks, and restores", async () => {
    const { home, workspace } = makeHome(fastRetryConfig);
    writeFileSync(join(workspace, "notes.txt"), "original\n");
    await runTaskThatEdits(home, workspace);
    const fake = await server({ replies: [] });
    const chat = await runCli(["chat"], {
      home,
      cwd: workspace,
      env: providerEnv(fake.url),
      input: "/undo\nyes\n/exit\n",
    });
    expect(chat.stdout + chat.stderr).toContain("+changed by the task");
    expect(chat.stdout + chat.stderr).toContain("removed new.txt, restored notes.txt");
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(workspace, "new.txt"))).toBe(false);
  });

  it("without a task id undoes the latest task that changed files, past a later one that changed none", async () => {
    const { home, workspace } = makeHome(fastRetryConfig);
    writeFileSync(join(workspace, "notes.txt"), "original\n");
    const edit = await runTaskThatEdits(home, workspace);
    expect(edit.outcome).toBe("completed");
    const question = await server({ replies: [{ text: "It is a note." }] });
    const answered = await runCli(["run", "what is notes.txt?", "--json"], {
      home,
      cwd: workspace,
      env: providerEnv(question.url),
    });
    expect(JSON.parse(answered.stdout)).toMatchObject({ outcome: "responded" });
    const undo = await runCli(["undo", "--yes", "--json"], { home });
    expect(undo.code, undo.stderr).toBe(0);
    expect(JSON.parse(undo.stdout)).toMatchObject({ taskId: edit.taskId, applied: true });
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("original\n");
    const none = await runCli(["undo", "--yes"], { home: makeHome().home });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no task has changed files yet; nothing to undo");
  });

  it("refuses, naming the file, when someone changed it after the task", async () => {
    const { home, workspace } = makeHome(fastRetryConfig);
    writeFileSync(join(workspace, "notes.txt"), "original\n");
    await runTaskThatEdits(home, workspace);
    writeFileSync(join(workspace, "notes.txt"), "the user's later edit\n");
    const undo = await runCli(["undo", "--yes"], { home });
    expect(undo.code).toBe(1);
    expect(undo.stderr).toMatch(/refusing to undo .*notes\.txt/);
    expect(readFileSync(join(workspace, "notes.txt"), "utf8")).toBe("the user's later edit\n");
    expect(existsSync(join(workspace, "new.txt"))).toBe(true);
  });
});

describe("mercury backup (real processes)", { timeout: 120_000 }, () => {
  it("a backup taken while another process writes restores to a database that passes integrity_check", async () => {
    const { home } = makeHome(fastRetryConfig);
    expect((await runCli(["usage"], { home })).code).toBe(0);
    const database = join(home, "mercury.db");
    // A real writer process: small transactions into the live database until told to stop.
    const writer = spawn(
      process.execPath,
      [
        "-e",
        `const D=require(${JSON.stringify(require.resolve("better-sqlite3"))});const d=new D(${JSON.stringify(database)});d.pragma("busy_timeout=5000");let i=0;const put=d.prepare("INSERT OR REPLACE INTO settings(key,value) VALUES(?,?)");process.stdout.write("ready\\n");const t=setInterval(()=>{d.transaction(()=>{for(let j=0;j<50;j++)put.run("k"+(i++),"x".repeat(200))})()},1);process.stdin.on("data",()=>{clearInterval(t);d.close();process.exit(0)});`,
      ],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => writer.stdout.once("data", () => resolve()));
    const created = await runCli(["backup", "create", "--json"], { home });
    writer.stdin.write("stop\n");
    await new Promise((resolve) => writer.on("exit", resolve));
    expect(created.code).toBe(0);
    const entry = JSON.parse(created.stdout) as { name: string; path: string };
    const list = JSON.parse((await runCli(["backup", "list", "--json"], { home })).stdout);
    expect(list.backups.map((backup: { name: string }) => backup.name)).toEqual([entry.name]);

    const restored = await runCli(["backup", "restore", entry.name, "--json"], { home });
    expect(restored.code).toBe(0);
    const check = new Database(database, { readonly: true });
    expect(check.pragma("integrity_check", { simple: true })).toBe("ok");
    check.close();
    expect((await runCli(["usage"], { home })).code).toBe(0);
  });

  it("restoring an old backup does not bring back a memory forgotten after it", async () => {
    const { home } = makeHome(fastRetryConfig);
    expect((await runCli(["memory", "add", "my locker code is 4711"], { home })).code).toBe(0);
    const created = JSON.parse((await runCli(["backup", "create", "--json"], { home })).stdout);
    const listed = JSON.parse((await runCli(["memory", "list", "--json"], { home })).stdout);
    const id = String((listed.memories ?? listed)[0].id);
    expect((await runCli(["memory", "forget", id], { home })).code).toBe(0);
    expect((await runCli(["backup", "restore", created.name], { home })).code).toBe(0);
    const after = await runCli(["memory", "list", "--json"], { home });
    expect(after.stdout).not.toContain("4711");
    const search = await runCli(["memory", "search", "locker code", "--json"], { home });
    expect(search.code).toBe(0);
    expect(search.stdout).not.toContain("4711");
  });
});
