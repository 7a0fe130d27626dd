import type { DoctorCheck } from "./types.js";

/** Skills that failed to load (skipped, with the reason). */
export const skillsCheck: DoctorCheck = async ({ settings }) => {
  const { checkSkills } = await import("../../skills/doctor.js");
  return [await checkSkills(settings.paths, settings.env)];
};

/** MCP servers that do not start; skipped with --offline (starting them may reach the network). */
export const mcpCheck: DoctorCheck = async ({ settings, offline }) => {
  if (offline) return [];
  const { checkMcpServers } = await import("../../mcp/doctor.js");
  return checkMcpServers(
    settings.config.mcp,
    settings.env,
    settings.paths.home,
    settings.config.sandbox.unfilteredNetwork,
  );
};
