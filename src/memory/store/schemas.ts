import { z } from "zod";
import { EVIDENCE_KINDS, IMPORTANCE_LEVELS, MEMORY_KINDS, TIERS } from "./types.js";

// zod versions of the store's closed sets, for what parses outside input (model output, tool
// arguments, import files). Kept apart from types.ts so that reading the store never loads zod.
export const memoryKindSchema = z.enum(MEMORY_KINDS);
export const evidenceKindSchema = z.enum(EVIDENCE_KINDS);
export const importanceSchema = z.enum(IMPORTANCE_LEVELS);
export const tierSchema = z.enum(TIERS);
