import { sep } from "node:path";
import { namedCargoBuildScript } from "./cargo-build.js";

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

/**
 * Pass 10: build scripts and tool settings another program runs on its own — when the folder is opened
 * in an editor or IDE (rust-analyzer runs `build.rs`, CMake Tools configures `CMakeLists.txt`, Gradle
 * import runs the build scripts), or at every command of the tool (bundler's `.bundle/config`, bun's
 * `bunfig.toml` preloads, rustup's `rust-toolchain` `path`, `.bazelrc`'s status command, the Gradle
 * and Maven wrappers and `.mvn/` extensions, git's `.gitmodules` for submodule commands), and a
 * jujutsu repository's settings (`.jj/`, its `.git`).
 */
const buildRunNames =
  /^(build\.rs|CMakeLists\.txt|CMakePresets\.json|CMakeUserPresets\.json|[\w.-]+\.cmake|\.gitmodules|bunfig\.toml|rust-toolchain(\.toml)?|\.bazelrc|(build|settings|init)\.gradle(\.kts)?|gradlew(\.bat)?|mvnw(\.cmd)?)$/;

function buildRunByTool(parts: string[], name: string, parent: string): boolean {
  if (buildRunNames.test(name)) return true;
  if (parent === ".bundle" && name === "config") return true;
  const folders = parts.slice(0, -1);
  if (folders.includes(".mvn") || folders.includes(".jj")) return true;
  return parent === "wrapper" && parts[parts.length - 3] === "gradle";
}

export function runLaterByTool(path: string): boolean {
  const parts = path.split(sep);
  const name = parts[parts.length - 1] ?? "";
  const parent = parts[parts.length - 2] ?? "";
  if (laterRunNames.test(name)) return true;
  // Pass 11: the file a Cargo.toml's `build = "…"` names is a build script like build.rs.
  if (name.endsWith(".rs") && namedCargoBuildScript(path)) return true;
  if (buildRunByTool(parts, name, parent)) return true;
  if (inRunFolder(parts)) return true;
  if (parent === ".vscode" && name === "launch.json") return true;
  if (parent === ".zed" && (name === "tasks.json" || name === "settings.json")) return true;
  if (parent === ".cargo" && (name === "config.toml" || name === "config")) return true;
  // mise's other places for a project's settings: `.config/mise.toml`, `.config/mise/config.toml`, `.mise/config.toml`.
  if (name === "mise.toml" || (name === "config.toml" && (parent === "mise" || parent === ".mise")))
    return true;
  return name.endsWith(".pth") && parts.includes("site-packages");
}
