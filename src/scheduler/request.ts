import { z } from "zod";

/** What a job may do beyond the owner's permissions: only less (roots inside the owner's, fewer tools). */
export const permissionProfileSchema = z
  .object({
    tools: z.array(z.string().min(1)).optional().describe("only these tools (names); omit for all"),
    writeRoots: z.array(z.string().min(1)).optional().describe("write only inside these folders"),
    readRoots: z.array(z.string().min(1)).optional().describe("read outside the workspace only here"),
  })
  .strict();
export type PermissionProfile = z.infer<typeof permissionProfileSchema>;

/** What a person (CLI, /schedule) or the model (schedule_task) asks for; parsed before anything is stored. */
export const jobRequestSchema = z
  .object({
    schedule: z
      .string()
      .min(1)
      .describe(
        'when: "every 30 minutes", 5 cron fields like "0 9 * * 1-5", "at 2026-12-24T18:00" or "in 20 minutes"',
      ),
    task: z.string().min(1).max(8000).describe("what to do each time, as you would tell the agent"),
    name: z.string().min(1).max(80).optional().describe("a short name; the task's start otherwise"),
    timezone: z.string().min(1).optional().describe("IANA zone, e.g. Europe/Berlin; the system's otherwise"),
    workspace: z
      .string()
      .min(1)
      .optional()
      .describe("absolute folder the job runs in; never the home directory"),
    delivery: z.string().optional().describe('"terminal", "telegram:<chat id>" or "none"'),
    silent: z.boolean().optional().describe("deliver only when a run does not succeed"),
    graceMinutes: z
      .number()
      .positive()
      .max(7 * 24 * 60)
      .optional()
      .describe("how late a run may still start"),
    runTokens: z.number().int().positive().optional().describe("token budget of one run"),
    runUsd: z.number().positive().optional().describe("USD budget of one run"),
    dayTokens: z.number().int().positive().optional().describe("token budget per day (UTC)"),
    dayUsd: z.number().positive().optional().describe("USD budget per day (UTC)"),
    permissions: permissionProfileSchema.optional().describe("narrow the owner's permissions for this job"),
  })
  .strict();
export type JobRequest = z.infer<typeof jobRequestSchema>;
