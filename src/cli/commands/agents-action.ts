import { z } from "zod";
import { loadSettings } from "../../config/settings.js";
import { DaemonClient, DaemonUnavailableError } from "../../daemon/client.js";
import { exitCodes } from "../exit-codes.js";

const agentSchema = z.object({
  id: z.string(),
  parentTaskId: z.string(),
  task: z.string(),
  status: z.string(),
  depth: z.number(),
  startedAt: z.string(),
  cwd: z.string(),
});

/** Sub-agents live in the daemon's process; without a daemon there are none to show or stop. */
export async function agentsAction(
  name: "list" | "stop",
  options: { json?: boolean },
  id?: string,
): Promise<number> {
  const { paths } = loadSettings();
  let client: DaemonClient;
  try {
    client = await DaemonClient.connect(paths.socket);
  } catch (error) {
    if (error instanceof DaemonUnavailableError || error instanceof Error) {
      if (options.json) process.stdout.write(`${JSON.stringify({ agents: [], daemon: false })}\n`);
      else
        process.stderr.write(
          "mercury: the daemon is not running (mercury start); sub-agents run inside it\n",
        );
      return name === "list" && options.json ? exitCodes.success : exitCodes.failure;
    }
    throw error;
  }
  try {
    if (name === "list") {
      const reply = z
        .object({ agents: z.array(agentSchema) })
        .parse(await client.request({ type: "agents" }));
      if (options.json) process.stdout.write(`${JSON.stringify({ agents: reply.agents, daemon: true })}\n`);
      else if (reply.agents.length === 0) process.stdout.write("No sub-agents.\n");
      else
        for (const agent of reply.agents)
          process.stdout.write(
            `${agent.id}  ${agent.status.padEnd(9)}  ${agent.startedAt}  ${agent.task.slice(0, 60)}\n`,
          );
      return exitCodes.success;
    }
    const reply = z
      .object({ stopped: z.boolean() })
      .parse(await client.request({ type: "stop-agent", agentId: id ?? "" }));
    if (options.json) process.stdout.write(`${JSON.stringify({ id, stopped: reply.stopped })}\n`);
    else if (reply.stopped) process.stdout.write(`Stopped ${id}.\n`);
    else process.stderr.write(`mercury: no running sub-agent "${id}"; see \`mercury agents list\`\n`);
    return reply.stopped ? exitCodes.success : exitCodes.failure;
  } finally {
    client.close();
  }
}
