import { SkillError, type SkillService } from "./service.js";

/**
 * `/skills` in the owner's chat: `/skills` lists, `/skills review` shows pending drafts with their
 * diff and evidence, `/skills review approve|reject <id>` settles one. Returns the lines to show.
 */
export function skillsSlashCommand(service: SkillService, argument: string, cwd: string): string[] {
  const [action = "", verb, rawId] = argument.trim().split(/\s+/);
  try {
    if (action === "") {
      const skills = service.available(cwd);
      const pending = service.drafts.list("pending").length;
      return [
        ...(skills.length === 0
          ? ["No skills available here."]
          : skills.map((skill) => `${skill.name} [${skill.source}]: ${skill.description.slice(0, 100)}`)),
        ...(pending > 0 ? [`${pending} draft(s) to review: /skills review`] : []),
      ];
    }
    if (action !== "review")
      return [`unknown: /skills ${argument}; use /skills or /skills review [approve|reject <id>]`];
    if (verb === undefined) {
      const drafts = service.drafts.list("pending");
      if (drafts.length === 0) return ["No drafts waiting for review."];
      return drafts.flatMap((draft) => [
        `draft ${draft.id}: ${draft.kind} skill "${draft.name}" from task ${draft.evidence.taskId} (${draft.evidence.outcome}; verified by ${draft.evidence.verification.map((v) => `${v.command} exit ${v.exitCode}`).join(", ")})`,
        `  why: ${draft.evidence.reason}`,
        ...draft.diff.split("\n").map((line) => `  ${line}`),
        `  /skills review approve ${draft.id}  |  /skills review reject ${draft.id}`,
      ]);
    }
    const id = Number(rawId);
    if ((verb !== "approve" && verb !== "reject") || !Number.isInteger(id) || id <= 0) {
      return ["usage: /skills review approve <id> | /skills review reject <id>"];
    }
    const draft = verb === "approve" ? service.approve(id, "owner") : service.reject(id, "owner");
    return [
      verb === "approve"
        ? `Approved draft ${id}: skill "${draft.name}" is now available.`
        : `Rejected draft ${id}; nothing was written.`,
    ];
  } catch (error) {
    if (error instanceof SkillError) return [error.message];
    throw error;
  }
}
