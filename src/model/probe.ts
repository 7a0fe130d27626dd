import type { ProviderEntry } from "../config/schema.js";
import { classifyModelError } from "./errors.js";

export type ProbeResult = { ok: true; detail: string } | { ok: false; detail: string };

/**
 * Checks that a provider answers and accepts the key, without spending tokens: lists its models.
 * Used by `mercury doctor`. (`mercury setup` does a real one-token generation instead.)
 */
export async function probeProvider(
  entry: ProviderEntry,
  apiKey: string | undefined,
  timeoutMs = 5000,
): Promise<ProbeResult> {
  const { url, headers } = modelsEndpoint(entry, apiKey);
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    if (response.ok) return { ok: true, detail: `${url} answered ${response.status}` };
    const body = await response.text();
    return { ok: false, detail: `${url} answered ${response.status}: ${body.slice(0, 200)}` };
  } catch (error) {
    return { ok: false, detail: `${url}: ${classifyModelError(error).cause}` };
  }
}

function modelsEndpoint(
  entry: ProviderEntry,
  apiKey: string | undefined,
): { url: string; headers: Record<string, string> } {
  const trim = (base: string) => base.replace(/\/+$/, "");
  if (entry.name === "anthropic") {
    return {
      url: `${trim(entry.baseUrl ?? "https://api.anthropic.com/v1")}/models`,
      headers: { "x-api-key": apiKey ?? "", "anthropic-version": "2023-06-01" },
    };
  }
  const base = entry.baseUrl ?? "https://api.openai.com/v1";
  return { url: `${trim(base)}/models`, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} };
}
