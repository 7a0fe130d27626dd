import type { DoctorCheck } from "./types.js";

/**
 * Whether the sqlite-vec extension (vector search) loads on this machine. Word search never needs
 * it; with an embeddings provider configured and no extension, memory search falls back to words
 * with a notice, so this is a failure only then.
 */
export const vectorSearchCheck: DoctorCheck = async () => {
  const { openMemoryDatabase } = await import("../../storage/database.js");
  const { probeVectorExtension } = await import("../../memory/search/sqlite-vec.js");
  const database = openMemoryDatabase();
  try {
    const probe = probeVectorExtension(database);
    if (probe.ok) {
      return [{ name: "vector search", status: "ok", detail: `sqlite-vec ${probe.version} loads` }];
    }
    const configured = (process.env.MERCURY_EMBEDDINGS_PROVIDER ?? "").trim() !== "";
    return [
      {
        name: "vector search",
        status: configured ? "fail" : "warn",
        detail: `${probe.error}${configured ? "" : " (no embeddings provider is configured: memory search uses words only)"}`,
        fix: "reinstall Mercury with its optional dependencies (npm install, without --omit=optional) so sqlite-vec's platform package is present",
      },
    ];
  } finally {
    database.close();
  }
};
