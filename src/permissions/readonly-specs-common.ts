/**
 * The read-only allowlist table. Conservative by construction: an option is accepted only when it is
 * listed here, spelled in full (GNU tools accept any unambiguous abbreviation of a long option, so
 * `--outp=` would be `--output=`: abbreviations are never matched), so an option we did not think
 * about makes the command ask instead of running unseen.
 */
export interface Spec {
  /** Short options that take no value, as one string of letters ("la" allows -l, -a, -la). */
  short?: string;
  /** Long options that take no value (a `--name=value` form is also accepted for these). */
  long?: string[];
  /** Options that take a value (short `-n 5`/`-n5`, long `--lines 5`/`--lines=5`). */
  values?: string[];
  /** How positional words are read. */
  positional: "paths" | "pattern-then-paths" | "none" | "text";
  /** Options that make the command write, run something or otherwise stop being read-only. */
  forbidden?: string[];
  /** Options whose value is a file to read. */
  fileValues?: string[];
  recursiveFlags?: string[];
  alwaysRecursive?: boolean;
  followFlags?: string[];
  /** At most this many positional words (uniq's second one is an output file). */
  maxPositional?: number;
  /** Default operand when there is none (a recursive search of "."). */
  defaultPath?: string;
  /** `head -20`: a bare number is an option. */
  numericOption?: boolean;
  /** Text programs whose options are not checked at all (echo prints `--help` as text). */
  anyText?: boolean;
}

export const common = ["--help", "--version"];
export const checksum: Spec = {
  positional: "paths",
  short: "btz",
  long: [...common, "--binary", "--text", "--zero", "--tag", "--untagged"],
};
