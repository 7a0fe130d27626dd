import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Every regular file under a directory, recursively (a daemon's socket is not a file to read). */
export function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    const stat = statSync(path);
    if (stat.isDirectory()) return filesUnder(path);
    return stat.isFile() ? [path] : [];
  });
}

/** What the extraction model replies when it finds one fact the person stated. */
export function factExtraction(text: string, sourceQuote: string, importance = "high"): string {
  return JSON.stringify({
    memories: [{ kind: "fact", text, evidence: "user-stated", importance, sourceQuote }],
  });
}

/** What the extraction model replies when a turn holds nothing to remember. */
export const noMemories = '{"memories":[]}';
