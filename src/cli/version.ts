import { readFileSync } from "node:fs";

/** The package version, read once from package.json next to dist/ (or src/ under tsx). */
function readVersion(): string {
  const parsed: unknown = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  if (parsed && typeof parsed === "object" && "version" in parsed && typeof parsed.version === "string") {
    return parsed.version;
  }
  throw new Error("package.json has no version string");
}

export const version: string = readVersion();
