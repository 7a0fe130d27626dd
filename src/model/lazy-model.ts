import type { LanguageModel } from "./types.js";

/**
 * A model whose provider package (`@ai-sdk/openai`, `/anthropic`, `/openai-compatible`: 60–330 KB
 * of JavaScript each) is imported on the first request, not when the provider chain is built: a
 * command loads only the package of the provider it actually calls, and only when it calls it.
 * `provider` and `modelId` are the values the real model reports, so usage, errors and telemetry read
 * the same.
 */
export function lazyLanguageModel(
  provider: string,
  modelId: string,
  load: () => Promise<LanguageModel>,
): LanguageModel {
  let loading: Promise<LanguageModel> | undefined;
  const real = () => {
    loading ??= load();
    return loading;
  };
  return {
    specificationVersion: "v3",
    provider,
    modelId,
    get supportedUrls() {
      return real().then((model) => model.supportedUrls);
    },
    doGenerate: async (options) => (await real()).doGenerate(options),
    doStream: async (options) => (await real()).doStream(options),
  };
}
