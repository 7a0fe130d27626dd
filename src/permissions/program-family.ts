import { ownEntry } from "./own-key.js";

/** Other builds of an interpreter or shell that run code the same way, by the name the tables use. */
const programAliases: Record<string, string> = {
  pypy: "python",
  pypy3: "python3",
  jruby: "ruby",
  truffleruby: "ruby",
  luajit: "lua",
  texlua: "lua",
  nodejs: "node",
};

/**
 * `python3.12`, `perl5.36`, `ruby3.2`, `php8.2`, `node20`, `lua5.4`, `bash5.2`, `tclsh8.6`, `pypy3`,
 * `luajit` are the interpreter or shell their family names: the same inline-code flags, the same
 * deletion calls, the same script reading. Only a known family's version suffix is dropped.
 */
export function programFamily(name: string): string {
  const alias = ownEntry(programAliases, name);
  if (alias !== undefined) return alias;
  const versioned =
    /^(python|pypy|perl|ruby|php|node|lua|tclsh|wish|julia|bash|zsh|ksh|dash|gawk)-?(\d+)(?:\.\d+)*$/.exec(
      name,
    );
  if (!versioned) return name;
  const family = versioned[1] as string;
  const major = versioned[2] as string;
  if (family === "python" || family === "pypy") return major === "2" ? "python2" : "python3";
  return family;
}
