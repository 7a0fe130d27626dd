import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect } from "vitest";
import { detectSandbox } from "../../src/sandbox/detect.js";

/**
 * A fake user: home with secrets and dotfiles, Mercury's home inside it, a project folder as the
 * workspace. It lives under /var/tmp, not /tmp: the sandbox gives every command a private /tmp, so
 * secrets under /tmp would be out of sight for the wrong reason and the tests would prove nothing.
 */
export interface FakeUser {
  root: string;
  home: string;
  mercuryHome: string;
  workspace: string;
  outside: string;
  secrets: { sshKey: string; dotEnv: string; awsCredentials: string };
  cleanup(): Promise<void>;
}

export const SSH_KEY_TEXT = "-----BEGIN OPENSSH PRIVATE KEY-----\nFAKE-KEY-MATERIAL-7f3a\n";
export const DOT_ENV_TEXT =
  "OPENAI_API_KEY=sk-fake-mercury-key-91c2\nTELEGRAM_BOT_TOKEN=123:fake-bot-token\n";
export const AWS_TEXT = "[default]\naws_secret_access_key=FAKE-AWS-SECRET-55\n";
export const BASHRC_TEXT = "# the user's own bashrc\n";

export async function makeFakeUser(): Promise<FakeUser> {
  await mkdir("/var/tmp", { recursive: true });
  const root = await realpath(await mkdtemp("/var/tmp/mercury-sandbox-test-"));
  const home = join(root, "home");
  const mercuryHome = join(home, ".mercury");
  const workspace = join(home, "project");
  const outside = join(root, "elsewhere");
  for (const dir of [
    home,
    mercuryHome,
    join(mercuryHome, "skills", "hello"),
    workspace,
    outside,
    join(home, ".ssh"),
    join(home, ".aws"),
  ])
    await mkdir(dir, { recursive: true });
  const sshKey = join(home, ".ssh", "id_rsa");
  const dotEnv = join(mercuryHome, ".env");
  const awsCredentials = join(home, ".aws", "credentials");
  await writeFile(sshKey, SSH_KEY_TEXT, { mode: 0o600 });
  await writeFile(dotEnv, DOT_ENV_TEXT, { mode: 0o600 });
  await writeFile(awsCredentials, AWS_TEXT, { mode: 0o600 });
  await writeFile(join(mercuryHome, "config.yaml"), "permissions:\n  writeRoots: []\n");
  await writeFile(join(mercuryHome, "skills", "hello", "SKILL.md"), "---\nname: hello\n---\nskill text\n");
  await writeFile(join(home, ".bashrc"), BASHRC_TEXT);
  await writeFile(join(home, "notes.txt"), "ordinary notes\n");
  await writeFile(join(workspace, "README.md"), "project readme\n");
  return {
    root,
    home,
    mercuryHome,
    workspace,
    outside,
    secrets: { sshKey, dotEnv, awsCredentials },
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}

/** On Linux the sandbox must be here (CI installs bubblewrap): a missing one fails, never skips. */
export function requireSandbox(): void {
  const status = detectSandbox();
  expect(
    status,
    "bubblewrap and slirp4netns must be installed for the sandbox tests (.ci/run installs them)",
  ).toEqual({ available: true, kind: "bubblewrap", network: { available: true, kind: "slirp4netns" } });
}

/** Host pids of processes whose command line contains `marker` (the host sees into the sandbox). */
export async function hostPidsWith(
  marker: string,
  accept: (argv: string[]) => boolean = () => true,
): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = await readFile(`/proc/${entry}/cmdline`, "utf8");
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      const zombie = stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
      const argv = cmdline.split("\0");
      if (!zombie && argv.join(" ").includes(marker) && accept(argv)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked: it is not running, which is what we count.
    }
  }
  return pids;
}

/** Polls until `check` holds; the test's own timeout bounds it. */
export async function waitFor(check: () => Promise<boolean>): Promise<boolean> {
  for (;;) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
