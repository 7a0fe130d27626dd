import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPermissionContext, type PermissionContext } from "../../src/permissions/context.js";

/**
 * A throw-away home folder laid out like a real one: secrets in ~/.ssh and ~/.aws, Mercury's home,
 * a project (the working directory and only root), a folder beside it, and the symlinks and hard
 * links attacks use.
 */
export interface Sandbox {
  root: string;
  home: string;
  mercuryHome: string;
  project: string;
  outside: string;
  context: PermissionContext;
  /** Replaces %HOME%, %MH%, %PROJECT% and %OUT% in a test input. */
  fill(text: string): string;
  cleanup(): void;
}

/**
 * `withHardLinkedSecret: false` leaves out notes-copy.txt (a hard link to ~/.ssh/id_rsa in the project):
 * with it there, allow-all covers no command in the project (the sandbox cannot mask it).
 */
export function createSandbox(options: { withHardLinkedSecret?: boolean } = {}): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mercury-perm-")));
  const home = join(root, "home");
  const mercuryHome = join(home, ".mercury");
  const project = join(home, "work", "project");
  const outside = join(home, "work", "outside");
  for (const dir of [
    join(home, ".ssh"),
    join(home, ".aws"),
    join(home, ".gnupg"),
    join(home, ".kube"),
    join(home, ".config", "gcloud"),
    join(home, ".docker"),
    mercuryHome,
    join(project, "src", "nested"),
    join(project, "deploy"),
    outside,
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n");
  writeFileSync(join(home, ".ssh", "config"), "Host *\n");
  writeFileSync(join(home, ".aws", "credentials"), "[default]\naws_secret_access_key=fake\n");
  writeFileSync(join(home, ".bashrc"), "# rc\n");
  writeFileSync(join(mercuryHome, ".env"), "OPENAI_API_KEY=sk-fake\n");
  writeFileSync(join(mercuryHome, "mercury.db"), "");
  writeFileSync(join(project, "README.md"), "# project\nfoo\n");
  // A TypeScript project: its tools are declared and installed, so `npx tsc`/`npx vitest` run local code.
  writeFileSync(
    join(project, "package.json"),
    '{"name":"p","devDependencies":{"typescript":"^5.0.0","vitest":"^3.0.0"}}\n',
  );
  mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
  for (const bin of ["tsc", "vitest"]) writeFileSync(join(project, "node_modules", ".bin", bin), "");
  writeFileSync(join(project, "tsconfig.json"), "{}\n");
  writeFileSync(join(project, "src", "index.ts"), "export const foo = 1;\n");
  writeFileSync(join(project, "src", "util.ts"), "export const bar = 2;\n");
  writeFileSync(join(project, "src", "nested", "deep.ts"), "export {};\n");
  writeFileSync(join(project, ".env"), "DB_PASSWORD=fake\n");
  writeFileSync(join(project, ".env.example"), "DB_PASSWORD=\n");
  writeFileSync(join(project, "key.pem"), "fake\n");
  writeFileSync(join(project, "deploy", "id_ed25519"), "fake\n");
  writeFileSync(join(outside, "notes.txt"), "outside\n");
  // Attack fixtures.
  symlinkSync(join(home, ".ssh", "id_rsa"), join(project, "innocent.txt"));
  symlinkSync(join(home, ".ssh"), join(project, "linkdir"));
  symlinkSync(join(outside, "notes.txt"), join(project, "outside-link.txt"));
  symlinkSync(outside, join(project, "outside-dir"));
  symlinkSync(join(home, ".ssh", "authorized_keys"), join(project, "dangling-key"));
  symlinkSync(join(outside, "created-later.txt"), join(project, "dangling-out"));
  symlinkSync("loop-b", join(project, "loop-a"));
  symlinkSync("loop-a", join(project, "loop-b"));
  writeFileSync(join(outside, "shared.txt"), "shared\n");
  linkSync(join(outside, "shared.txt"), join(project, "hardlinked.txt"));
  // Issue 9 fixtures: a link to home, a link to a disk, a hard link to a secret, secrets of other tools.
  symlinkSync(home, join(project, "homelink"));
  symlinkSync("/dev/sda", join(project, "disk"));
  if (options.withHardLinkedSecret !== false)
    linkSync(join(home, ".ssh", "id_rsa"), join(project, "notes-copy.txt"));
  mkdirSync(join(home, ".config", "git"), { recursive: true });
  writeFileSync(join(home, ".config", "git", "credentials"), "https://u:p@example.com\n");
  mkdirSync(join(home, ".cargo"), { recursive: true });
  writeFileSync(join(home, ".cargo", "credentials.toml"), "[registry]\ntoken='x'\n");
  mkdirSync(join(home, ".config", "sops", "age"), { recursive: true });
  writeFileSync(join(home, ".config", "sops", "age", "keys.txt"), "AGE-SECRET-KEY-1\n");
  mkdirSync(join(home, ".config", "google-chrome", "Default"), { recursive: true });
  writeFileSync(join(home, ".config", "google-chrome", "Default", "Login Data"), "");
  writeFileSync(join(mercuryHome, "config.yaml"), "provider: openai\n");
  mkdirSync(join(mercuryHome, "soul"), { recursive: true });
  writeFileSync(join(mercuryHome, "soul", "soul.md"), "# soul\n");
  writeFileSync(join(project, "cleanup.sh"), "rm -rf ~\n");
  // Project scripts the model could have written: a package.json script and a Makefile recipe.
  mkdirSync(join(project, "pkg"), { recursive: true });
  writeFileSync(
    join(project, "pkg", "package.json"),
    JSON.stringify({
      name: "q",
      scripts: { test: "vitest", clean: "rm -rf ~", prebuild: "rm -rf /", build: "tsc" },
    }),
  );
  writeFileSync(join(project, "evil.mk"), "all:\n\t@echo hi\n\trm -rf ~\nquick: ; rm -rf /\n");

  const context = createPermissionContext({
    cwd: project,
    home,
    mercuryHome,
    sessionId: "session-1",
    userKey: "owner",
    taskId: "task-1",
    env: { HOME: home, PATH: "/usr/bin:/bin", USER: "tester", OPENAI_API_KEY: "sk-should-never-be-read" },
  });
  return {
    root,
    home,
    mercuryHome,
    project,
    outside,
    context,
    fill: (text) =>
      text
        .replaceAll("%HOME%", home)
        .replaceAll("%MH%", mercuryHome)
        .replaceAll("%PROJECT%", project)
        .replaceAll("%OUT%", outside),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}
