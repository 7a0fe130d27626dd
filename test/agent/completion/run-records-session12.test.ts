import { describe, expect, it } from "vitest";
import { checkedFingerprint } from "../../../src/agent/completion/run-records.js";

describe("the files a check run is evidence for (session 12)", () => {
  it("a run that changed visible files is evidence for the files it started on", () => {
    expect(checkedFingerprint("git:aaa+ign1", "git:bbb+ign1")).toBe("git:aaa+ign1");
    expect(checkedFingerprint("snapshot:aaa+ign1", "snapshot:bbb+ign2")).toBe("snapshot:aaa+ign1");
  });

  it("a run that only rewrote ignored output (a pretest build, a test cache) is evidence for what it left", () => {
    // Otherwise every project whose check writes build output or a cache would pause as rewriting its files.
    expect(checkedFingerprint("git:aaa+ign1", "git:aaa+ign2")).toBe("git:aaa+ign2");
    expect(checkedFingerprint("git:aaa+ign1", "git:aaa+ign1")).toBe("git:aaa+ign1");
  });

  it("without a fingerprint on either side there is nothing to compare", () => {
    expect(checkedFingerprint(null, "git:aaa+ign1")).toBe("git:aaa+ign1");
    expect(checkedFingerprint("git:aaa+ign1", null)).toBeNull();
  });
});
