import { askUserTool } from "./ask-user.js";
import { deleteFileTool } from "./delete-file.js";
import { editFileTool } from "./edit-file.js";
import { listDirTool } from "./list-dir.js";
import { PlanStore } from "./plan-store.js";
import { readFileTool } from "./read-file.js";
import { createRunCommandTool, type RunCommandOptions } from "./run-command.js";
import { searchFilesTool } from "./search-files.js";
import type { AnyTool } from "./types.js";
import { createUpdatePlanTool } from "./update-plan.js";
import { createWebFetchTool, type WebFetchOptions } from "./web-fetch.js";
import { writeFileTool } from "./write-file.js";

export interface BuiltinToolOptions {
  /** Shared with the agent so it can read open items and emit "plan" events; a new store when absent. */
  planStore?: PlanStore;
  runCommand?: RunCommandOptions;
  webFetch?: WebFetchOptions;
}

/** Every built-in tool, in the order the model sees them. */
export function builtinTools(options: BuiltinToolOptions = {}): AnyTool[] {
  return [
    readFileTool,
    writeFileTool,
    editFileTool,
    listDirTool,
    searchFilesTool,
    deleteFileTool,
    createRunCommandTool(options.runCommand),
    createWebFetchTool(options.webFetch),
    askUserTool,
    createUpdatePlanTool(options.planStore ?? new PlanStore()),
  ];
}
