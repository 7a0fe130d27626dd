/** The database was written by a newer Mercury: refused rather than silently downgraded. */
export class DatabaseVersionError extends Error {
  override name = "DatabaseVersionError";
}
