import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";

interface JobDocument {
  id: string;
  status: string;
  kind: string;
  nextDueAt: string | null;
  silent: boolean;
  timezone: string | null;
  budget: { runTokens: number | null; dayUsd: number | null };
}

/** The README's `mercury schedule …` lines, through the built binary, and the inputs a person gets wrong. */
describe("mercury schedule (built binary)", { timeout: 120_000 }, () => {
  it("add in each README form, then list, show, pause, resume, history, remove", async () => {
    const place = makeHome();
    const cli = (args: string[]) =>
      runCli(args, { home: place.home, userHome: place.userHome, cwd: place.workspace });
    const forms = [
      [
        "0 9 * * 1-5",
        "summarize yesterday's CI failures",
        "--tz",
        "Europe/Berlin",
        "--run-tokens",
        "20000",
        "--day-usd",
        "0.50",
      ],
      ["every 30 minutes", "check the disk", "--silent"],
      ["at 2099-12-24T18:00", "remind me to call home"],
      ["in 20 minutes", "look at the build again"],
    ];
    const ids: string[] = [];
    for (const form of forms) {
      const added = await cli(["schedule", "add", ...form, "--json"]);
      expect(added.code, added.stderr).toBe(0);
      const job = (JSON.parse(added.stdout) as { job: JobDocument }).job;
      expect(job.status).toBe("active");
      expect(Date.parse(job.nextDueAt ?? "")).toBeGreaterThan(Date.now());
      ids.push(job.id);
    }
    const listed = JSON.parse((await cli(["schedule", "list", "--json"])).stdout) as { jobs: JobDocument[] };
    expect(listed.jobs.map((job) => job.id).sort()).toEqual([...ids].sort());
    const cron = listed.jobs.find((job) => job.id === ids[0]);
    expect(cron).toMatchObject({
      kind: "cron",
      timezone: "Europe/Berlin",
      budget: { runTokens: 20000, dayUsd: 0.5 },
    });
    expect(listed.jobs.find((job) => job.id === ids[1])?.silent).toBe(true);

    const id = ids[1] ?? "";
    expect(JSON.parse((await cli(["schedule", "pause", id, "--json"])).stdout).job.status).toBe("paused");
    expect((await cli(["schedule", "show", id])).stdout).toContain("paused");
    expect(JSON.parse((await cli(["schedule", "resume", id, "--json"])).stdout).job.status).toBe("active");
    const history = JSON.parse((await cli(["schedule", "history", id, "--limit", "5", "--json"])).stdout) as {
      runs: unknown[];
    };
    expect(history.runs).toEqual([]);
    expect(JSON.parse((await cli(["schedule", "remove", id, "--json"])).stdout).job.status).toBe("removed");
    const after = JSON.parse((await cli(["schedule", "list", "--json"])).stdout) as { jobs: JobDocument[] };
    expect(after.jobs.some((job) => job.id === id && job.status !== "removed")).toBe(false);
  });

  it("refuses a day that does not exist instead of rolling it over into the next month", async () => {
    const place = makeHome();
    for (const when of [
      "at 2099-02-30T10:00",
      "at 2099-04-31T09:00",
      "at 2099-02-28T24:00",
      "at 2099-01-01T10:60",
    ]) {
      const result = await runCli(["schedule", "add", when, "x"], {
        home: place.home,
        userHome: place.userHome,
        cwd: place.workspace,
      });
      expect(result.code, when).toBe(2);
      expect(result.stderr).toContain(`"${when}" is not a real date and time`);
    }
    const listed = await runCli(["schedule", "list", "--json"], {
      home: place.home,
      userHome: place.userHome,
    });
    expect(JSON.parse(listed.stdout)).toEqual({ jobs: [] });
  });

  it("names what was wrong for a past time, a cron that never fires, an unknown zone and a bad budget", async () => {
    const place = makeHome();
    const cases: [string[], RegExp][] = [
      [["at 2020-01-01T00:00", "x"], /is in the past/],
      [["0 9 31 2 *", "x"], /never due/],
      [["0 9 * * *", "x", "--tz", "Mars/Olympus"], /not an IANA time zone/],
      [["every 0 minutes", "x"], /between 1 minute and 366 days/],
      [["every 5 minutes", "x", "--run-tokens", "-5"], /--run-tokens must be a positive number/],
      [["every 5 minutes", "x", "--deliver", "nowhere"], /delivery target "nowhere" is not known/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(["schedule", "add", ...args], {
        home: place.home,
        userHome: place.userHome,
        cwd: place.workspace,
      });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });
});
