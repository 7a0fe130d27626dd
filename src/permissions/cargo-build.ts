import { readFileSync } from "node:fs";
import { basename, dirname, resolve, sep } from "node:path";
import type { Finding } from "./shell-words.js";
import type { Invocation } from "./wrappers.js";

/**
 * Pass 11: a Cargo.toml's `build = "path"` makes any file cargo's build script (`build.rs` is only
 * the default): rust-analyzer runs it when the folder is opened and cargo at the user's next build,
 * outside the sandbox. So the key is an autorun setting (`path.autorun`, a person's call) where the
 * engine sees it written — in text a command writes to a Cargo.toml, or in the words of an in-place
 * editor given one — and the file an existing key names is a build script like `build.rs`.
 */

const buildKey = /^\s*build\s*=/m;

/** Whether `path` is the build script a Cargo.toml above it names with `build = "…"`. */
export function namedCargoBuildScript(path: string): boolean {
  let folder = dirname(path);
  for (let depth = 0; depth < 6; depth++) {
    const manifest = readManifest(resolve(folder, "Cargo.toml"));
    const named = manifest === null ? undefined : /^\s*build\s*=\s*["']([^"']+)["']/m.exec(manifest)?.[1];
    if (named !== undefined && resolve(folder, named) === path) return true;
    const parent = dirname(folder);
    if (parent === folder) return false;
    folder = parent;
  }
  return false;
}

function readManifest(path: string): string | null {
  try {
    return readFileSync(path, "utf8").slice(0, 256 * 1024);
  } catch {
    // No manifest in this folder (the usual case): nothing names a build script here.
    return null;
  }
}

/** The finding for a Cargo.toml written with a `build` key, by the text the command writes. */
export function writtenBuildKey(path: string, text: string): Finding | null {
  if (basename(path) !== "Cargo.toml" || !buildKey.test(text)) return null;
  return finding(path);
}

/** Programs that change a file in place by a script in their words (`sed -i '…build = …' Cargo.toml`). */
const inPlaceEditors = /^(g?sed|perl|ruby|python[\d.]*|g?awk|ex|ed|vim?|nvim|dasel|yq|toml|tomlq|sd)$/;

/** The finding for an in-place edit of a Cargo.toml whose words set a `build` key. */
export function editedBuildKey(invocation: Invocation): Finding | null {
  if (!inPlaceEditors.test(invocation.program)) return null;
  const texts = invocation.words.slice(1).map((word) => word.text);
  const manifest = texts.find((text) => basename(text) === "Cargo.toml");
  if (manifest === undefined) return null;
  if (!texts.some((text) => /(^|[^\w.-])build\s*=/.test(text.replaceAll("\\n", "\n")))) return null;
  return finding(manifest);
}

function finding(path: string): Finding {
  return {
    decision: "ask",
    rule: "path.autorun",
    reason: `${path.split(sep).slice(-2).join(sep)} gets a build = key: cargo and rust-analyzer run the file it names as a build script when the folder is opened or built, outside the sandbox; only a person approves it`,
  };
}
