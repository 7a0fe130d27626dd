import { describe, expect, it } from "vitest";
import { relativeTime } from "../../../src/channels/cli/relative-time.js";
import { toolActivity, toolLine } from "../../../src/channels/cli/tool-line.js";

describe("one line per tool call", () => {
  it("a command shows its exit code, and a timeout says so", () => {
    expect(toolLine("run_command", { command: "npm test" }, true, "exit code: 0\nstdout:\nok")).toBe(
      "✓ run_command npm test — exit 0",
    );
    expect(
      toolLine("run_command", { command: "sleep 99" }, false, "exit code: none\ntimed out after 120 s"),
    ).toBe("✗ run_command sleep 99 — exit none, timed out");
  });

  it("an edit shows the lines changed; a write the lines written, in words that agree with the number", () => {
    expect(
      toolLine("edit_file", { path: "src/a.ts" }, true, "Edited src/a.ts (first at line 3; -1 +3 lines)."),
    ).toBe("✓ edit_file src/a.ts — +3 −1 lines");
    expect(
      toolLine("write_file", { path: "out.txt" }, true, "Created /w/out.txt: 3 bytes, 1 lines written."),
    ).toBe("✓ write_file out.txt — created, 1 line");
    expect(
      toolLine("write_file", { path: "b.txt" }, true, "Overwrote /w/b.txt: 9 bytes, 4 lines written."),
    ).toBe("✓ write_file b.txt — overwrote, 4 lines");
  });

  it("a failure shows the first line of its error, on one line", () => {
    expect(
      toolLine(
        "read_file",
        { path: "missing.txt" },
        false,
        "No such file: missing.txt\nlist_dir shows what exists",
      ),
    ).toBe("✗ read_file missing.txt — No such file: missing.txt");
  });

  it("the spinner names what is happening", () => {
    expect(toolActivity("run_command", { command: "npm test" })).toBe("running `npm test`");
    expect(toolActivity("edit_file", { path: "src/a.ts" })).toBe("editing src/a.ts");
    expect(toolActivity("web_fetch", { url: "https://example.com" })).toBe("fetching https://example.com");
    expect(toolActivity("remember", {})).toBe("using remember");
  });
});

describe("relative times", () => {
  const now = new Date("2026-12-01T12:00:00Z");
  it("says how far ahead or behind, for people", () => {
    expect(relativeTime(new Date("2026-12-01T12:04:00Z"), now)).toBe("in 4 min");
    expect(relativeTime("2026-12-01T11:59:15Z", now)).toBe("45 s ago");
    expect(relativeTime("2026-12-01T11:59:58Z", now)).toBe("just now");
    expect(relativeTime(new Date("2026-12-01T14:30:00Z"), now)).toBe("in 2.5 h");
    expect(relativeTime(new Date("2026-11-28T12:00:00Z"), now)).toBe("3 days ago");
  });

  it("an unreadable time is shown as given, not as NaN", () => {
    expect(relativeTime("not a date", now)).toBe("not a date");
  });
});
