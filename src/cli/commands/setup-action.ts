import * as prompts from "@clack/prompts";
import { ConfigError } from "../../config/errors.js";
import {
  apiKeyVariables,
  defaultBaseUrls,
  defaultModels,
  type ProviderName,
  providerNames,
} from "../../config/schema.js";
import { readDotEnv, writeDotEnv } from "../../config/secrets.js";
import { loadSettings } from "../../config/settings.js";
import { writePrimaryProvider } from "../../config/write.js";
import { ensureSoulFiles } from "../../soul/soul.js";
import { testConnection } from "../connection-test.js";
import { mercuryCommand } from "../invocation.js";
import { UserCancel } from "../user-cancel.js";
import type { SetupOptions } from "./setup.js";

function cancelled(value: unknown): never | void {
  if (prompts.isCancel(value)) {
    prompts.cancel("Setup cancelled; nothing was written.");
    // Said once, above: the error only ends the command (exit 1, as a cancelled run).
    throw new UserCancel("setup cancelled");
  }
}

/** What the wizard has gathered so far; a rejected answer is asked again, the others are kept. */
interface Answers {
  provider: ProviderName;
  baseUrl: string | undefined;
  model: string;
  /** The variable the key is stored under, and the key typed in this wizard (if any). */
  keyVariable: string | undefined;
  typedKey: string | undefined;
}

export async function runSetup(options: SetupOptions): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const { paths, env } = loadSettings();
  if (!interactive && !options.provider) {
    throw new ConfigError("setup needs a terminal, or --provider (and --model) for a scripted setup.");
  }
  if (interactive) prompts.intro("Mercury setup");
  const provider = options.provider ? parseProvider(options.provider) : await askProvider(undefined);
  const answers: Answers = {
    provider,
    baseUrl: options.baseUrl ?? defaultBaseUrls[provider],
    model: options.model ?? defaultModels[provider],
    keyVariable: keyVariableOf(provider, env),
    typedKey: undefined,
  };
  if (interactive) {
    if (!options.baseUrl) await askBaseUrl(answers);
    if (!answers.keyVariable || !env[answers.keyVariable]) await askKey(answers, paths.env);
    if (!options.model) await askModel(answers);
  }
  if (answers.provider === "openai-compatible" && !answers.baseUrl)
    throw new ConfigError("openai-compatible needs --base-url.");

  if (!options.skipTest) {
    const passed = interactive
      ? await testUntilAccepted(answers, env, paths.env)
      : await testOnce(answers, env);
    if (!passed) return 1;
  }

  const secrets: Record<string, string> = {};
  const keyNote = keyToSave(answers, env, paths.env, secrets);
  let telegramToken = options.telegramToken;
  if (!telegramToken && interactive && !env.TELEGRAM_BOT_TOKEN) {
    const wants = await prompts.confirm({ message: "Connect a Telegram bot now?", initialValue: false });
    cancelled(wants);
    if (wants === true) {
      const answer = await prompts.password({ message: "Bot token from @BotFather" });
      cancelled(answer);
      telegramToken = String(answer);
    }
  }
  if (telegramToken) secrets.TELEGRAM_BOT_TOKEN = telegramToken;

  writePrimaryProvider(
    paths.config,
    {
      provider: answers.provider,
      model: answers.model,
      ...(answers.baseUrl ? { baseUrl: answers.baseUrl } : {}),
    },
    { enableTelegram: Boolean(telegramToken) },
  );
  if (Object.keys(secrets).length > 0) writeDotEnv(paths.env, secrets);
  ensureSoulFiles(paths.soul);
  const mercury = mercuryCommand();
  const summary = `Wrote ${paths.config}${Object.keys(secrets).length > 0 ? ` and ${paths.env} (0600)` : ""}. ${keyNote} Next: \`${mercury} chat\`${telegramToken ? `; for Telegram: \`${mercury} start\`, then \`${mercury} telegram pair\`` : ""}.`;
  if (interactive) prompts.outro(summary);
  else process.stdout.write(`${summary}\n`);
  return 0;
}

function parseProvider(name: string): ProviderName {
  const found = providerNames.find((candidate) => candidate === name);
  if (!found) throw new ConfigError(`--provider "${name}": expected one of ${providerNames.join(", ")}.`);
  return found;
}

/** The variable a provider's key lives in: the one already set, else the provider's own name for it. */
function keyVariableOf(provider: ProviderName, env: NodeJS.ProcessEnv): string | undefined {
  if (env.MERCURY_API_KEY) return "MERCURY_API_KEY";
  const named = apiKeyVariables[provider].find((name) => env[name]);
  return (
    named ??
    apiKeyVariables[provider][0] ??
    (provider === "openai-compatible" ? "MERCURY_API_KEY" : undefined)
  );
}

function keyOf(answers: Answers, env: NodeJS.ProcessEnv): string | undefined {
  if (answers.typedKey) return answers.typedKey;
  return answers.keyVariable ? env[answers.keyVariable] : undefined;
}

/**
 * Decides what goes into .env for the key, and says it plainly: a key typed in the wizard or given
 * in the environment of a scripted setup is saved (0600); one already in .env is left as it is.
 */
function keyToSave(
  answers: Answers,
  env: NodeJS.ProcessEnv,
  envPath: string,
  secrets: Record<string, string>,
): string {
  const variable = answers.keyVariable;
  const key = keyOf(answers, env);
  if (!variable || !key) {
    return answers.provider === "openai-compatible" || answers.provider === "ollama"
      ? "No API key was given, so none was saved (this provider is used without one)."
      : `No API key was saved: set ${variable ?? "MERCURY_API_KEY"} before \`mercury chat\`.`;
  }
  if (readDotEnv(envPath)[variable] === key) return `The key in ${variable} was already in ${envPath}.`;
  secrets[variable] = key;
  return `Saved the key as ${variable} in ${envPath} (mode 0600).`;
}

async function askProvider(current: ProviderName | undefined): Promise<ProviderName> {
  const answer = await prompts.select({
    message: "Which provider should Mercury use?",
    options: providerNames.map((name) => ({ value: name, label: name })),
    ...(current ? { initialValue: current } : {}),
  });
  cancelled(answer);
  return answer as ProviderName;
}

async function askBaseUrl(answers: Answers): Promise<void> {
  if (answers.provider !== "openai-compatible" && answers.provider !== "ollama") return;
  const fallback = answers.baseUrl ?? "http://127.0.0.1:8000/v1";
  // A placeholder with a default, never a pre-filled value: typing replaces it instead of appending.
  const answer = await prompts.text({
    message: `Base URL of the API (Enter for ${fallback})`,
    placeholder: fallback,
    defaultValue: fallback,
    validate: (value) =>
      !value || /^https?:\/\//.test(value) ? undefined : "an http(s) URL, e.g. http://127.0.0.1:8000/v1",
  });
  cancelled(answer);
  answers.baseUrl = String(answer);
}

async function askKey(answers: Answers, envPath: string): Promise<void> {
  if (!answers.keyVariable) return;
  const optional = answers.provider === "openai-compatible";
  const answer = await prompts.password({
    message: `API key (${answers.keyVariable}; stored in ${envPath} with mode 0600)${optional ? ", Enter for none" : ""}`,
    validate: (value) => (optional || (value && value.length > 8) ? undefined : "paste the key"),
  });
  cancelled(answer);
  answers.typedKey = String(answer) === "" ? undefined : String(answer);
}

async function askModel(answers: Answers): Promise<void> {
  const answer = await prompts.text({
    // Quoted: some providers' default is the model literally named "default".
    message: `Model (Enter for "${answers.model}")`,
    placeholder: answers.model,
    defaultValue: answers.model,
  });
  cancelled(answer);
  answers.model = String(answer).trim() || answers.model;
}

async function runTest(answers: Answers, env: NodeJS.ProcessEnv, cancel?: AbortSignal) {
  const secrets: Record<string, string> = {};
  if (answers.keyVariable && answers.typedKey) secrets[answers.keyVariable] = answers.typedKey;
  return testConnection(
    {
      provider: answers.provider,
      model: answers.model,
      ...(answers.baseUrl ? { baseUrl: answers.baseUrl } : {}),
    },
    { ...env, ...secrets },
    cancel,
  );
}

async function testOnce(answers: Answers, env: NodeJS.ProcessEnv): Promise<boolean> {
  const result = await runTest(answers, env);
  if (!result.ok) {
    process.stderr.write(
      `connection test failed: ${result.detail}\nNothing was written. Check the key, model and URL, then run setup again (or --skip-test).\n`,
    );
    return false;
  }
  process.stdout.write(`connection test ok: ${result.detail}\n`);
  return true;
}

/** The wizard's test: on failure the user changes the one answer that was wrong and tries again. */
async function testUntilAccepted(
  answers: Answers,
  env: NodeJS.ProcessEnv,
  envPath: string,
): Promise<boolean> {
  for (;;) {
    // No clack spinner: it blocks the terminal in raw mode and answers Ctrl+C with process.exit(0)
    // (@clack/core's block()), so a cancel during the test exited 0. Here Ctrl+C is a SIGINT that
    // stops the request and ends the wizard as a cancel at any prompt does.
    prompts.log.step("Testing the connection (one short request)…");
    const cancel = new AbortController();
    const onInterrupt = () => cancel.abort();
    process.once("SIGINT", onInterrupt);
    // Raced, not awaited alone: the aborted request may settle later; the cancel is now.
    const cancelledByUser = new Promise<"cancelled">((resolve) =>
      cancel.signal.addEventListener("abort", () => resolve("cancelled"), { once: true }),
    );
    let result: Awaited<ReturnType<typeof runTest>> | "cancelled";
    try {
      result = await Promise.race([runTest(answers, env, cancel.signal), cancelledByUser]);
    } finally {
      process.removeListener("SIGINT", onInterrupt);
    }
    if (result === "cancelled") {
      prompts.cancel("Setup cancelled; nothing was written.");
      throw new UserCancel("setup cancelled");
    }
    if (result.ok) {
      prompts.log.success(`Connected: ${result.detail}`);
      return true;
    }
    prompts.log.error("Connection test failed");
    prompts.log.error(result.detail);
    const choice = await prompts.select({
      message: "What do you want to change?",
      options: [
        { value: "key", label: "the API key" },
        { value: "model", label: `the model (${answers.model})` },
        ...(answers.provider === "openai-compatible" || answers.provider === "ollama"
          ? [{ value: "url", label: `the base URL (${answers.baseUrl ?? "none"})` }]
          : []),
        { value: "provider", label: `the provider (${answers.provider})` },
        { value: "save", label: "nothing: save these settings without a working connection" },
        { value: "quit", label: "quit without writing anything" },
      ],
    });
    cancelled(choice);
    if (choice === "quit") {
      prompts.cancel("Nothing was written.");
      return false;
    }
    if (choice === "save") return true;
    if (choice === "key") await askKey(answers, envPath);
    if (choice === "model") await askModel(answers);
    if (choice === "url") await askBaseUrl(answers);
    if (choice === "provider") {
      answers.provider = await askProvider(answers.provider);
      answers.baseUrl = defaultBaseUrls[answers.provider];
      answers.model = defaultModels[answers.provider];
      answers.keyVariable = keyVariableOf(answers.provider, env);
      answers.typedKey = undefined;
      await askBaseUrl(answers);
      if (!answers.keyVariable || !env[answers.keyVariable]) await askKey(answers, envPath);
      await askModel(answers);
    }
  }
}
