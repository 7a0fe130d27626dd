import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { systemClock } from "../../src/agent/clock.js";
import { type AgentEvent, EventBus } from "../../src/agent/events.js";
import type { AgentHooks } from "../../src/agent/runtime.js";
import { Agent } from "../../src/agent/runtime.js";
import { withMcpHooks } from "../../src/app/mcp-hooks.js";
import { withSkillHooks } from "../../src/app/skill-hooks.js";
import type { McpManager } from "../../src/mcp/manager.js";
import { ProviderChain } from "../../src/model/chain.js";
import { ApprovalBroker } from "../../src/permissions/approvals.js";
import { AuditLog } from "../../src/permissions/audit.js";
import { createAuthorizer } from "../../src/permissions/authorizer.js";
import { createPermissionContext } from "../../src/permissions/context.js";
import { SkillService } from "../../src/skills/service.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import { builtinTools } from "../../src/tools/builtin.js";
import type { ScriptedReply } from "../fakes/script.js";
import { ScriptedModel } from "../fakes/scripted-model.js";

export function tempRoot(): string {
  return mkdtempSync(join(tmpdir(), "mercury-skills-"));
}

export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

export function skillMd(name: string, description: string, extra = "", body = "Do the thing."): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}\n`;
}

/**
 * A real Agent over scripted replies, the real built-in tools, the skills hooks and the real
 * permission engine (approvals broker, audit) in the given mode.
 */
export function skillsAgent(options: {
  replies: ScriptedReply[];
  mode?: "ask" | "refuse";
  mcp?: McpManager;
  allowAll?: boolean;
}) {
  const root = tempRoot();
  const home = join(root, "mercury");
  const userHome = join(root, "user");
  const workspace = join(root, "workspace");
  for (const folder of [home, userHome, workspace]) mkdirSync(folder, { recursive: true });
  const database = openMemoryDatabase();
  const bus = new EventBus();
  const events: AgentEvent[] = [];
  bus.subscribe((event) => events.push(event));
  const skills = new SkillService({ home, userHome, database, clock: systemClock });
  const model = new ScriptedModel(options.replies, { provider: "p0", modelId: "model-0" });
  const chain = new ProviderChain(
    [
      {
        label: "p0",
        entry: { name: "openai-compatible", model: "model-0", baseUrl: "http://127.0.0.1:9/v1" },
        model,
        problem: null,
      },
    ],
    {
      retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1, requestTimeoutMs: 5000 },
      prices: {},
      sleep: async () => {},
      random: () => 0.5,
    },
  );
  const broker = new ApprovalBroker({ database, onEvent: (event) => bus.emit(event) });
  const audit = new AuditLog(database, systemClock);
  const prompts: string[] = [];
  const agent = new Agent(
    database,
    chain,
    builtinTools({ runCommand: { defaultTimeoutMs: 30_000, killGraceMs: 200 } }),
    bus,
    {
      home,
      maxSteps: 10,
      maxOutputTokens: 1000,
      contextWindow: 100_000,
      historyReserveTokens: 1000,
      budget: { dailyTokens: null, dailyUsd: null },
    },
    withSkillHooks(
      skills,
      bus,
      systemClock,
      withOptionalMcp(options.mcp, {
        systemPrompt: async ({ cwd }) => {
          const prompt = `You are a test agent.\n\n${skills.promptSection(cwd)}`;
          prompts.push(prompt);
          return prompt;
        },
      }),
    ),
  );
  const run = (input: string, cwd = workspace, sessionId?: string) =>
    agent.run({
      ...(sessionId ? { sessionId } : {}),
      userKey: "owner",
      channel: "test",
      input,
      cwd,
      signal: new AbortController().signal,
      authorizerFor: (task) =>
        createAuthorizer({
          context: createPermissionContext({
            cwd,
            home: userHome,
            mercuryHome: home,
            readRoots: skills.readRoots(cwd),
            mode: options.mode ?? "refuse",
            ...(options.allowAll ? { allowAll: { until: new Date(Date.now() + 3_600_000) } } : {}),
            sessionId: task.sessionId,
            userKey: task.userKey,
            taskId: task.taskId,
            env: { HOME: userHome, PATH: process.env.PATH ?? "/usr/bin:/bin" },
          }),
          broker,
          audit,
        }),
    });
  return { root, home, userHome, workspace, database, skills, model, events, prompts, run, broker, bus };
}

function withOptionalMcp(mcp: McpManager | undefined, hooks: AgentHooks): AgentHooks {
  return mcp ? withMcpHooks(mcp, hooks) : hooks;
}
