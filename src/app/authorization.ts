import type { AuthorizationRequest, AuthorizationResult } from "../tools/types.js";
import type { MercuryApp } from "./container.js";

export interface TaskAuthorizerOptions {
  taskId: string;
  sessionId: string;
  userKey: string;
  cwd: string;
  /** refuse: `mercury run` without --yes; allow-all: `--yes`; ask: interactive channels. */
  mode: "ask" | "refuse" | "allow-all";
}

// PROVISIONAL until the permission engine is wired: refuses everything.
export function createTaskAuthorizer(_app: MercuryApp, _options: TaskAuthorizerOptions) {
  return async (_request: AuthorizationRequest): Promise<AuthorizationResult> => ({
    allowed: false,
    rule: "engine.missing",
    reason: "permission engine not wired",
  });
}
