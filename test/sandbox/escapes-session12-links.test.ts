import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

import { editFileTool } from "../../src/tools/edit-file.js";
import { readFileTool } from "../../src/tools/read-file.js";
import type { AuthorizationRequest, AuthorizationResult, ToolContext } from "../../src/tools/types.js";
import { writeFileTool } from "../../src/tools/write-file.js";

/**
 * Session 12: the file tools against a folder swapped for a link between the permission check and
 * the open. A sandboxed command left running in the background can loop `mv sub sub.real; ln -s
 * ~/.ssh sub`; O_NOFOLLOW guards only the last component. The race is won here on purpose: the
 * engine's check answers with the real path, then the folder on the way becomes a link to a folder
 * outside the allowed roots, before the tool opens the file.
 */

function world() {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "mercury-link-race-")));
  const workspace = join(root, "workspace");
  const outside = join(root, "outside");
  mkdirSync(join(workspace, "sub"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(workspace, "sub", "notes.txt"), "workspace notes\n");
  writeFileSync(join(outside, "notes.txt"), "OUTSIDE-SECRET-42\n");
  // The check sees the real folder; right after it, the racer swaps it for a link out.
  const authorize = async (request: AuthorizationRequest): Promise<AuthorizationResult> => {
    const resolvedPath = request.kind === "path" ? request.path : undefined;
    renameSync(join(workspace, "sub"), join(workspace, "sub.real"));
    symlinkSync(outside, join(workspace, "sub"));
    return { allowed: true, rule: "test.allowed", ...(resolvedPath ? { resolvedPath } : {}) };
  };
  const context = {
    signal: new AbortController().signal,
    cwd: workspace,
    sessionId: "s",
    taskId: "t",
    userKey: "owner",
    home: join(root, "mercury-home"),
    authorize,
    reportActivity: () => undefined,
  } as ToolContext;
  return { context, target: join(workspace, "sub", "notes.txt"), outsideFile: join(outside, "notes.txt") };
}

describe("file tools against a folder swapped for a link after the check (session 12)", () => {
  it("write_file, edit_file and read_file refuse; the outside file is neither read nor changed", async () => {
    const write = world();
    const written = await writeFileTool.execute({ path: write.target, content: "pwned\n" }, write.context);
    expect(written.ok).toBe(false);
    expect(written.ok ? "" : written.error).toMatch(/replaced by a link/);
    expect(readFileSync(write.outsideFile, "utf8")).toBe("OUTSIDE-SECRET-42\n");

    const edit = world();
    const edited = await editFileTool.execute(
      { path: edit.target, oldText: "OUTSIDE-SECRET-42", newText: "pwned" },
      edit.context,
    );
    expect(edited.ok).toBe(false);
    expect(edited.ok ? "" : edited.error).not.toContain("OUTSIDE-SECRET-42");
    expect(readFileSync(edit.outsideFile, "utf8")).toBe("OUTSIDE-SECRET-42\n");

    const read = world();
    const shown = await readFileTool.execute({ path: read.target }, read.context);
    expect(shown.ok).toBe(false);
    expect(JSON.stringify(shown)).not.toContain("OUTSIDE-SECRET-42");
  });
});
