// Apart from schema.ts (zod) so that the consolidation judge can use it without loading zod.

/** The body of a single surrounding Markdown code fence, or the text unchanged. */
export function stripCodeFence(raw: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(raw);
  return fenced?.[1] ?? raw;
}
