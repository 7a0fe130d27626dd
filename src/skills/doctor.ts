import { homedir } from "node:os";
import { systemClock } from "../agent/clock.js";
import type { HomePaths } from "../config/paths.js";
import { openDatabase } from "../storage/database.js";
import { SkillService } from "./service.js";

export interface SkillsCheck {
  name: string;
  status: "ok" | "warn" | "fail";
  detail: string;
  fix?: string;
}

/** Doctor: SKILL.md files that failed to load (with why), skills flagged as failing, pending drafts. */
export function checkSkills(paths: HomePaths, env: NodeJS.ProcessEnv, cwd = process.cwd()): SkillsCheck {
  let database: ReturnType<typeof openDatabase>;
  try {
    database = openDatabase(paths.database);
  } catch (error) {
    return {
      name: "skills",
      status: "fail",
      detail: `cannot open the database: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  try {
    const service = new SkillService({
      home: paths.home,
      userHome: env.HOME && env.HOME.trim() !== "" ? env.HOME : homedir(),
      database,
      clock: systemClock,
    });
    const discovery = service.discover(cwd);
    const flagged = discovery.skills.filter((skill) => service.state.record(skill.name).flagged);
    const pending = service.drafts.list("pending").length;
    const summary = `${discovery.skills.length} skill(s)${pending > 0 ? `, ${pending} draft(s) to review` : ""}`;
    if (discovery.problems.length > 0) {
      return {
        name: "skills",
        status: "warn",
        detail: `${summary}; not loaded: ${discovery.problems.map((problem) => `${problem.file} (${problem.reason})`).join("; ")}`,
        fix: "fix the frontmatter of those SKILL.md files (see `mercury skills list`)",
      };
    }
    if (flagged.length > 0) {
      return {
        name: "skills",
        status: "warn",
        detail: `${summary}; keep failing: ${flagged.map((skill) => skill.name).join(", ")}`,
        fix: "read `mercury skills show <name>`, then fix, revert or disable it",
      };
    }
    return { name: "skills", status: "ok", detail: summary };
  } finally {
    database.close();
  }
}
