import { z } from "zod";
import { importanceSchema, memoryKindSchema } from "../store/schemas.js";
import { stripCodeFence } from "./code-fence.js";

export { stripCodeFence } from "./code-fence.js";

/**
 * What extraction may return. Strict objects: an unknown key (a "confidence": 0.9 the model made up,
 * a misspelt field) is an error to repair, not something to ignore. There are no defaults: a
 * candidate missing its importance or source quote is rejected, never filled in.
 */
export const extractedCandidateSchema = z.strictObject({
  kind: memoryKindSchema,
  text: z.string().trim().min(3).max(500),
  // The model can only claim the user said it or that it inferred it; the store decides the rest.
  evidence: z.enum(["user-stated", "inferred"]),
  importance: importanceSchema,
  sourceQuote: z.string().trim().min(1).max(1000),
  validFrom: z.iso
    .date()
    .or(z.iso.datetime({ offset: true }))
    .optional(),
});

export const extractionOutputSchema = z.strictObject({
  memories: z.array(extractedCandidateSchema).max(20),
});

export type ExtractedCandidate = z.infer<typeof extractedCandidateSchema>;
export type ExtractionOutput = z.infer<typeof extractionOutputSchema>;

export const EXTRACTION_SYSTEM = `You extract long-term memories about the user from a conversation excerpt.
Return ONLY a JSON object, no prose, of this exact shape:
{"memories":[{"kind":"fact|preference|goal|decision|constraint|relationship|event|instruction","text":"one self-contained sentence about the user","evidence":"user-stated|inferred","importance":"low|normal|high|critical","sourceQuote":"the exact words from the excerpt this rests on","validFrom":"YYYY-MM-DD (optional, only when the excerpt says when it became true)"}]}
Rules:
- Only durable things worth knowing in weeks: who the user is, what they like, want, decided, must avoid, who they know.
- "user-stated" only when the user said it in their own words in the excerpt; otherwise "inferred".
- sourceQuote must be copied verbatim from the excerpt.
- Do not add any other field. Never include a confidence or score.
- Nothing worth remembering: {"memories":[]}`;

export function extractionPrompt(excerpt: string): string {
  return `Conversation excerpt:\n<<<\n${excerpt}\n>>>`;
}

export function repairPrompt(excerpt: string, badOutput: string, problem: string): string {
  return `${extractionPrompt(excerpt)}\n\nYour previous answer was rejected.\nIt was:\n<<<\n${badOutput}\n>>>\nProblem: ${problem}\nAnswer again with ONLY the corrected JSON object.`;
}

function collapse(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

export type ParseResult = { ok: true; output: ExtractionOutput } | { ok: false; problem: string };

/**
 * Parses and validates model output against the excerpt. A single surrounding Markdown code fence
 * is tolerated (it changes no content); anything else that is not the exact schema is a problem,
 * and so is a source quote that does not occur in the excerpt (a fabricated provenance).
 */
export function parseExtraction(raw: string, excerpt: string): ParseResult {
  const body = stripCodeFence(raw);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return {
      ok: false,
      problem: `not valid JSON (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  const parsed = extractionOutputSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .slice(0, 5)
      .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
      .join("; ");
    return { ok: false, problem: `does not match the schema (${issues})` };
  }
  const haystack = collapse(excerpt);
  for (const [index, candidate] of parsed.data.memories.entries()) {
    if (!haystack.includes(collapse(candidate.sourceQuote))) {
      return {
        ok: false,
        problem: `memories.${index}.sourceQuote is not a verbatim quote from the excerpt: ${JSON.stringify(candidate.sourceQuote.slice(0, 80))}`,
      };
    }
  }
  return { ok: true, output: parsed.data };
}
