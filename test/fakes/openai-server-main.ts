/**
 * Runs the fake OpenAI-compatible server from a shell, for manual testing of the built binary:
 *
 *   npx tsx test/fakes/openai-server-main.ts [--replies replies.json] [--api-key KEY] [--port N]
 *       [--usage-only-when-requested]
 *
 * Prints one JSON line `{"url":"http://127.0.0.1:PORT/v1"}` once listening, then serves until SIGINT or
 * SIGTERM. replies.json holds a JSON array of ScriptedReply (see script.ts); more can be queued while it
 * runs with `curl -X POST $BASE/_fake/replies -d '[{"text":"hi"}]'`, and `GET $BASE/_fake/requests`
 * shows what clients sent ($BASE is the url without /v1). Bad arguments exit 2 with the reason.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { startFakeOpenAIServer } from "./openai-server.js";
import { parseScriptedReplies, type ScriptedReply } from "./script.js";

async function main(): Promise<void> {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse().values;
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  let replies: ScriptedReply[] = [];
  if (values.replies !== undefined) {
    let text: string;
    try {
      text = await readFile(values.replies, "utf8");
    } catch (error) {
      fail(
        `cannot read --replies ${values.replies}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    try {
      replies = parseScriptedReplies(JSON.parse(text));
    } catch (error) {
      fail(`${values.replies}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be 0-65535, got ${values.port}`);

  const server = await startFakeOpenAIServer({
    replies,
    apiKey: values["api-key"],
    port,
    usageOnlyWhenRequested: values["usage-only-when-requested"] === true,
  });
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`fake OpenAI server: close failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

function parse() {
  return parseArgs({
    options: {
      replies: { type: "string" },
      "api-key": { type: "string" },
      port: { type: "string" },
      "usage-only-when-requested": { type: "boolean" },
    },
    strict: true,
    allowPositionals: false,
  });
}

function fail(message: string): never {
  process.stderr.write(`fake OpenAI server: ${message}\n`);
  process.exit(2);
}

await main();
