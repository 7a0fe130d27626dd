import type { AnyTool, ToolDefinition } from "../tools/types.js";
import { alwaysAvailableWhileNarrowed, narrowedToolNames } from "./allowed-tools.js";
import type { Skill } from "./types.js";

/**
 * The skills active in one task. Each active skill with `allowed-tools` narrows what may run: the
 * allowed set is the intersection over every narrowing skill, so activating another skill can never
 * widen it. Nothing here touches permissions: a tool that is still available asks the engine as usual.
 */
export class SkillSession {
  private readonly active = new Map<string, Skill>();
  private allowed: Set<string> | null = null;

  constructor(private readonly toolNames: readonly string[]) {}

  activate(skill: Skill): { unknown: string[] } {
    this.active.set(skill.name, skill);
    if (skill.allowedTools === null) return { unknown: [] };
    const { allowed, unknown } = narrowedToolNames(skill.allowedTools, this.toolNames);
    this.allowed =
      this.allowed === null ? allowed : new Set([...this.allowed].filter((name) => allowed.has(name)));
    return { unknown };
  }

  activeNames(): string[] {
    return [...this.active.keys()];
  }

  /** Null when nothing narrows; otherwise the tools that may still run. */
  allowedTools(): Set<string> | null {
    return this.allowed === null ? null : new Set([...this.allowed, ...alwaysAvailableWhileNarrowed]);
  }

  /** Wraps a tool so a call outside the active skills' `allowed-tools` is a tool error. */
  guard<Input>(tool: ToolDefinition<Input>): ToolDefinition<Input> {
    return {
      ...tool,
      execute: async (input, context) => {
        const allowed = this.allowedTools();
        if (allowed !== null && !allowed.has(tool.name)) {
          return {
            ok: false,
            error: `${tool.name} is not available while the skill(s) ${this.activeNames().join(", ")} are active: their allowed-tools limit this task to ${[...allowed].sort().join(", ")}.`,
          };
        }
        return tool.execute(input, context);
      },
    };
  }

  guardAll(tools: readonly AnyTool[]): AnyTool[] {
    return tools.map((tool) => this.guard(tool));
  }
}
