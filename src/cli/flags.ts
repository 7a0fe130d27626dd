import type { ConfigFlags } from "../config/load.js";

/** Options every command accepts (declared on the root program). */
export interface GlobalFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

export function configFlagsFrom(flags: GlobalFlags): ConfigFlags {
  return {
    ...(flags.provider ? { provider: flags.provider } : {}),
    ...(flags.model ? { model: flags.model } : {}),
    ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
  };
}
