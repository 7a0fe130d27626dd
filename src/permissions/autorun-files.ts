import { sep } from "node:path";

/**
 * Pass 9: more files another tool reads and runs on its own at the user's next unrelated action,
 * outside the sandbox (`path.autorun`, a person's call; never `--yes`):
 * - entering the folder: mise (`.mise.toml` hooks and `_.source`, `.tool-versions`), direnv's `.envrc`
 *   is already a secret-like `path.env-file`;
 * - opening or debugging it in an editor: JetBrains run configurations and startup tasks (`.idea/`,
 *   `.run/`), VS Code's `launch.json` (its preLaunchTask), Zed tasks, Emacs `.dir-locals.el`, lazy.nvim's
 *   `.lazy.lua`, the SDKs Yarn writes for editors (`.yarn/sdks/`);
 * - starting a debugger here (`.gdbinit`, `.lldbinit`);
 * - every yarn command (`.yarn/releases/*`, `.yarn/plugins/*`: the yarnPath and plugins), every cargo
 *   command (`.cargo/config.toml`: runner, rustc-wrapper, aliases);
 * - every Python start in the project's environment (`*.pth` in site-packages, `sitecustomize.py`,
 *   `usercustomize.py`);
 * - git reading files (`.gitattributes` routes files to filter, diff and merge drivers by name).
 */
const laterRunNames =
  /^(\.mise\.toml|mise\.toml|\.mise\.local\.toml|mise\.local\.toml|\.rtx\.toml|\.tool-versions|\.gdbinit|\.lldbinit|\.dir-locals(-2)?\.el|\.lazy\.lua|\.gitattributes|sitecustomize\.py|usercustomize\.py)$/;

/** Folders whose every file is run or trusted by a tool: `.idea/`, `.run/`, yarn's releases, plugins, SDKs. */
function inRunFolder(parts: string[]): boolean {
  const folders = parts.slice(0, -1);
  if (folders.includes(".idea") || folders.includes(".run")) return true;
  return folders.some(
    (part, index) => part === ".yarn" && /^(releases|plugins|sdks)$/.test(folders[index + 1] ?? ""),
  );
}

export function runLaterByTool(path: string): boolean {
  const parts = path.split(sep);
  const name = parts[parts.length - 1] ?? "";
  const parent = parts[parts.length - 2] ?? "";
  if (laterRunNames.test(name)) return true;
  if (inRunFolder(parts)) return true;
  if (parent === ".vscode" && name === "launch.json") return true;
  if (parent === ".zed" && (name === "tasks.json" || name === "settings.json")) return true;
  if (parent === ".cargo" && (name === "config.toml" || name === "config")) return true;
  // mise's other places for a project's settings: `.config/mise.toml`, `.config/mise/config.toml`, `.mise/config.toml`.
  if (name === "mise.toml" || (name === "config.toml" && (parent === "mise" || parent === ".mise")))
    return true;
  return name.endsWith(".pth") && parts.includes("site-packages");
}
