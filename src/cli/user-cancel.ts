/**
 * The person stopped an interactive command (Ctrl+C or Escape at a prompt). The command has
 * already said so on screen, so the error carries no line to print; it ends with exit 1, the code a
 * cancelled `mercury run` ends with (a cancel is not a usage or configuration error, which is 2).
 */
export class UserCancel extends Error {
  override name = "UserCancel";
}
