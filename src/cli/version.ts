import { readFileSync } from "node:fs";
import { z } from "zod";

/** The package version, read once from package.json next to dist/ (or src/ under tsx). */
export const version: string = z
  .object({ version: z.string() })
  .parse(JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))).version;
