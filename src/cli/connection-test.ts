import type { ProviderName } from "../config/schema.js";
import { ProviderChain } from "../model/chain.js";
import { buildProviders, defaultModelFactory } from "../model/providers.js";

/** A real one-step generation through the provider adapter, with no retries: proves key, model and URL. */
export async function testConnection(
  primary: { provider: ProviderName; model: string; baseUrl?: string },
  env: NodeJS.ProcessEnv,
  /** The person cancelled (Ctrl+C at the wizard's spinner): the request is abandoned. */
  cancel?: AbortSignal,
): Promise<{ ok: boolean; detail: string }> {
  const chain = new ProviderChain(
    buildProviders(
      [
        {
          name: primary.provider,
          model: primary.model,
          ...(primary.baseUrl ? { baseUrl: primary.baseUrl } : {}),
        },
      ],
      env,
      defaultModelFactory,
    ),
    { retry: { attempts: 1, baseDelayMs: 0, maxDelayMs: 0, requestTimeoutMs: 30_000 }, prices: {} },
  );
  const result = await chain.step(
    {
      system: "Connection test.",
      messages: [{ role: "user", content: "Reply with the single word OK." }],
      tools: [],
      maxOutputTokens: 16,
    },
    cancel ? AbortSignal.any([AbortSignal.timeout(60_000), cancel]) : AbortSignal.timeout(60_000),
  );
  if (result.ok)
    return {
      ok: true,
      detail: `${primary.provider}/${primary.model} replied "${result.text.trim().slice(0, 40)}"`,
    };
  return { ok: false, detail: result.message };
}
