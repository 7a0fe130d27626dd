/**
 * The one thing memory needs from a language model: a completion. The lead implements it over the
 * configured providers; tests inject fakes. `retryable` distinguishes "try later" (provider down,
 * rate limit, timeout) from "this request will never work" (bad credentials, refused content).
 */
export type MemoryModelResult = { ok: true; text: string } | { ok: false; retryable: boolean; cause: string };

export interface MemoryModel {
  complete(request: { system: string; prompt: string; signal?: AbortSignal }): Promise<MemoryModelResult>;
}
