import { z } from "zod";
import { networkPatternProblem } from "../sandbox/network-grants.js";
import { dashboardConfigSchema } from "./dashboard-schema.js";
import { mcpConfigSchema, type ResolvedMcpConfig } from "./mcp-schema.js";
import { providerNames } from "./provider-defaults.js";

export {
  apiKeyVariables,
  defaultBaseUrls,
  defaultModels,
  type ProviderName,
  providerNames,
} from "./provider-defaults.js";

const price = z
  .object({
    input: z.number().nonnegative().describe("USD per million input tokens"),
    output: z.number().nonnegative().describe("USD per million output tokens"),
  })
  .strict();

export const providerEntrySchema = z
  .object({
    name: z.enum(providerNames),
    model: z.string().min(1),
    baseUrl: z.url().optional(),
    /** Tokens the model accepts in one request; bounds the history we send. */
    contextWindow: z.number().int().positive().optional(),
    /** Shown in errors and usage; defaults to the provider name. */
    label: z.string().min(1).optional(),
  })
  .strict();
export type ProviderEntry = z.infer<typeof providerEntrySchema>;

/**
 * The file schema. Every key is optional in the file; defaults live in `defaultConfig`.
 * `.strict()` everywhere: an unknown key is a typo the user wants to hear about.
 */
export const configFileSchema = z
  .object({
    provider: z.enum(providerNames).optional(),
    model: z.string().min(1).optional(),
    baseUrl: z.url().optional(),
    /** Ordered fallback chain; when present its first entry is the primary. */
    providers: z.array(providerEntrySchema).min(1).optional(),
    agent: z
      .object({
        maxSteps: z.number().int().min(1).max(500).optional(),
        contextWindow: z.number().int().min(1024).optional(),
        maxOutputTokens: z.number().int().min(16).optional(),
        /** Tokens reserved for the reply and the system prompt when bounding history. */
        historyReserveTokens: z.number().int().min(0).optional(),
        /** The command that proves a change works (e.g. "npm test"); detected from the project when absent. */
        verifyCommand: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    budget: z
      .object({
        dailyTokens: z.number().int().positive().nullable().optional(),
        dailyUsd: z.number().positive().nullable().optional(),
      })
      .strict()
      .optional(),
    /** USD per million tokens, keyed by model id. */
    prices: z.record(z.string(), price).optional(),
    retry: z
      .object({
        attempts: z.number().int().min(1).max(10).optional(),
        baseDelayMs: z.number().int().min(0).optional(),
        maxDelayMs: z.number().int().min(0).optional(),
        requestTimeoutMs: z.number().int().min(1000).optional(),
      })
      .strict()
      .optional(),
    permissions: z
      .object({
        readRoots: z.array(z.string()).optional(),
        writeRoots: z.array(z.string()).optional(),
        allowAllMinutes: z
          .number()
          .int()
          .min(1)
          .max(24 * 60)
          .optional(),
      })
      .strict()
      .optional(),
    memory: z
      .object({
        enabled: z.boolean().optional(),
        showReceipts: z.boolean().optional(),
        promptTokens: z.number().int().min(0).optional(),
        /** Run extraction after each chat/daemon turn; `mercury run` only queues it. */
        extractAutomatically: z.boolean().optional(),
      })
      .strict()
      .optional(),
    telegram: z
      .object({
        enabled: z.boolean().optional(),
        /**
         * Group and supergroup chat ids (negative numbers) where Mercury answers; every other group,
         * supergroup and channel is refused. Approvals, questions and memory receipts never go to a group.
         */
        groups: z.array(z.number().int().negative()).optional(),
      })
      .strict()
      .optional(),
    heartbeat: z
      .object({
        /** Minutes between the daemon's heartbeat check-ins (soul/heartbeat.md); 0 turns them off. */
        intervalMinutes: z
          .number()
          .int()
          .min(0)
          .max(7 * 24 * 60)
          .optional(),
      })
      .strict()
      .optional(),
    mcp: mcpConfigSchema.optional(),
    sandbox: z
      .object({
        /**
         * Commands that get the (filtered) network once allowed to run, e.g. "npm install": a
         * command whose plain words begin with one of these. `--yes` alone never grants network.
         */
        networkCommands: z
          .array(
            z.string().superRefine((pattern, context) => {
              const problem = networkPatternProblem(pattern);
              if (problem)
                context.addIssue({
                  code: "custom",
                  message: `sandbox.networkCommands entry "${pattern}" ${problem}; write the command's first words, e.g. "npm install"`,
                });
            }),
          )
          .optional(),
        /**
         * With no network filter on this machine (slirp4netns missing): true gives commands granted
         * the network the host's whole network (loopback and LAN included) instead of refusing them.
         */
        unfilteredNetwork: z.boolean().optional(),
      })
      .strict()
      .optional(),
    log: z
      .object({
        level: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).optional(),
      })
      .strict()
      .optional(),
    /** The local web dashboard (keys in dashboard-schema.ts, defaults in src/dashboard/bind.ts). */
    dashboard: dashboardConfigSchema.optional(),
  })
  .strict();
export type ConfigFile = z.infer<typeof configFileSchema>;

export interface ResolvedConfig {
  mcp: ResolvedMcpConfig;
  home: string;
  chain: ProviderEntry[];
  agent: {
    maxSteps: number;
    contextWindow: number;
    maxOutputTokens: number;
    historyReserveTokens: number;
    verifyCommand: string | null;
  };
  budget: { dailyTokens: number | null; dailyUsd: number | null };
  prices: Record<string, { input: number; output: number }>;
  retry: { attempts: number; baseDelayMs: number; maxDelayMs: number; requestTimeoutMs: number };
  permissions: { readRoots: string[]; writeRoots: string[]; allowAllMinutes: number };
  memory: {
    enabled: boolean;
    showReceipts: boolean;
    promptTokens: number;
    extractAutomatically: boolean;
  };
  telegram: { enabled: boolean; groups: number[] };
  sandbox: { networkCommands: string[]; unfilteredNetwork: boolean };
  heartbeat: { intervalMinutes: number };
  log: { level: "fatal" | "error" | "warn" | "info" | "debug" | "trace" };
  stall: { softMs: number; hardMs: number };
}
