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
  const model: LanguageModel = {
    specificationVersion: "v3",
    provider,
    modelId,
    get supportedUrls() {
      return real().then((model) => model.supportedUrls);
    },
    doGenerate: async (options) => (await real()).doGenerate(options),
    doStream: async (options) => (await real()).doStream(options),
  };
  loaders.set(model, real);
  return model;
}

const loaders = new WeakMap<LanguageModel, () => Promise<LanguageModel>>();

/**
 * Imports a lazy model's provider package now (a command about to call it); resolves when it is
 * loaded. Never rejects: a failed import is reported by the request, which awaits the same promise.
 */
export async function prepareModel(model: LanguageModel): Promise<void> {
  await loaders.get(model)?.().then(undefined, reportedByTheRequest);
}

function reportedByTheRequest(): void {}
