import type { Hono } from "hono";
import type { DashboardEnv } from "../guard.js";
import type { DashboardServices } from "../services.js";
import { registerApprovalPages } from "./approvals.js";
import { registerChatPages } from "./chat.js";
import { registerMemoryPages } from "./memory.js";
import { registerStatusPages } from "./status.js";
import { registerTaskPages } from "./tasks.js";
import { registerUsagePages } from "./usage.js";
import { registerWorkPages } from "./work.js";

export function registerPages(app: Hono<DashboardEnv>, services: DashboardServices): void {
  registerStatusPages(app, services);
  registerChatPages(app, services);
  registerMemoryPages(app, services);
  registerTaskPages(app, services);
  registerApprovalPages(app, services);
  registerUsagePages(app, services);
  registerWorkPages(app, services);
}
