import * as prompts from "@clack/prompts";
import { ConfigError } from "../../config/errors.js";
import {
  apiKeyVariables,
  defaultBaseUrls,
  defaultModels,
  type ProviderName,
  providerNames,
} from "../../config/schema.js";
import { writeDotEnv } from "../../config/secrets.js";
import { loadSettings } from "../../config/settings.js";

import { writePrimaryProvider } from "../../config/write.js";
import { ensureSoulFiles } from "../../soul/soul.js";
import { testConnection } from "../connection-test.js";
import type { SetupOptions } from "./setup.js";

function cancelled(value: unknown): never | void {
  if (prompts.isCancel(value)) {
    prompts.cancel("Setup cancelled; nothing was written.");
    throw new ConfigError("setup cancelled");
  }
}

export async function runSetup(options: SetupOptions): Promise<number> {
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const { paths, env } = loadSettings();
  if (interactive) prompts.intro("Mercury setup");

  let provider: ProviderName;
  if (options.provider) {
    const found = providerNames.find((name) => name === options.provider);
    if (!found)
      throw new ConfigError(`--provider "${options.provider}": expected one of ${providerNames.join(", ")}.`);
    provider = found;
  } else if (interactive) {
    const answer = await prompts.select({
      message: "Which provider should Mercury use?",
      options: providerNames.map((name) => ({ value: name, label: name })),
    });
    cancelled(answer);
    provider = answer as ProviderName;
  } else {
    throw new ConfigError("setup needs a terminal, or --provider (and --model) for a scripted setup.");
  }

  let baseUrl = options.baseUrl ?? defaultBaseUrls[provider];
  if ((provider === "openai-compatible" || provider === "ollama") && !options.baseUrl && interactive) {
    const answer = await prompts.text({
      message: "Base URL of the API",
      placeholder: "http://127.0.0.1:11434/v1",
      initialValue: baseUrl ?? "",
      validate: (value) =>
        value && /^https?:\/\//.test(value) ? undefined : "an http(s) URL, e.g. http://127.0.0.1:8000/v1",
    });
    cancelled(answer);
    baseUrl = String(answer);
  }
  if (provider === "openai-compatible" && !baseUrl)
    throw new ConfigError("openai-compatible needs --base-url.");

  const keyVariable =
    apiKeyVariables[provider][0] ?? (provider === "openai-compatible" ? "MERCURY_API_KEY" : undefined);
  const secrets: Record<string, string> = {};
  if (keyVariable && !env[keyVariable] && interactive) {
    const answer = await prompts.password({
      message: `API key (${keyVariable}; stored in ${paths.env} with mode 0600)`,
      validate: (value) =>
        provider === "openai-compatible" || (value && value.length > 8) ? undefined : "paste the key",
    });
    cancelled(answer);
    if (String(answer) !== "") secrets[keyVariable] = String(answer);
  }

  let model = options.model ?? defaultModels[provider];
  if (!options.model && interactive) {
    const answer = await prompts.text({ message: "Model", initialValue: model });
    cancelled(answer);
    model = String(answer);
  }

  if (!options.skipTest) {
    const spinner = interactive ? prompts.spinner() : null;
    spinner?.start("Testing the connection (one short request)…");
    const result = await testConnection(
      { provider, model, ...(baseUrl ? { baseUrl } : {}) },
      { ...env, ...secrets },
    );
    if (!result.ok) {
      spinner?.stop("Connection test failed");
      process.stderr.write(
        `connection test failed: ${result.detail}\nNothing was written. Check the key, model and URL, then run setup again (or --skip-test).\n`,
      );
      return 1;
    }
    spinner?.stop(`Connected: ${result.detail}`);
    if (!interactive) process.stdout.write(`connection test ok: ${result.detail}\n`);
  }

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
    { provider, model, ...(baseUrl ? { baseUrl } : {}) },
    { enableTelegram: Boolean(telegramToken) },
  );
  if (Object.keys(secrets).length > 0) writeDotEnv(paths.env, secrets);
  ensureSoulFiles(paths.soul);
  const summary = `Wrote ${paths.config}${Object.keys(secrets).length > 0 ? ` and ${paths.env} (0600)` : ""}. Next: \`mercury chat\`${telegramToken ? "; for Telegram: `mercury start`, then `mercury telegram pair`" : ""}.`;
  if (interactive) prompts.outro(summary);
  else process.stdout.write(`${summary}\n`);
  return 0;
}
