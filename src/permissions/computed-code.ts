import type { Finding } from "./shell-words.js";

/**
 * Pass 12: interpreter code that builds the text it runs. The inline-code reader matches literals
 * (`os.system("rm -rf ~")`); code that spells its command from character codes, decoders, packing,
 * reversal or formatting (`chr(114)+chr(109)`, `b64decode(…)`, `pack("H*", …)`, `"mr"[::-1]`,
 * `String.fromCharCode`, `"%c" % 114`), or reaches its runner by a computed name (`getattr(os,
 * "sys"+"tem")`, `require("child_"+"process")`), hides it from every literal check. Such code is
 * opaque (`command.eval`, never `--yes`), like `eval` of a built string in the shell. Code that only
 * prints what it builds (`print(chr(65))`) runs nothing and stays an ordinary ask.
 */

/** Calls and forms that run a command or evaluate code, in the usual interpreters. */
const processRunner =
  /\b(?:system|popen|exec[a-zA-Z]*|spawn[a-zA-Z]*|check_output|Popen|eval|compile|Function|execute|passthru|shell_exec|proc_open|assert|create_function|call_user_func(?:_array)?|instance_eval|class_eval|loadstring|dofile)\s*\(|\bqx\b|%x[({[]|\b(?:system|exec)\s+["'\w$]|\bsubprocess\b|IO\.popen|Open3|child_process|os\.execute|io\.popen|\beval\b/;

/** Calls that delete, move or write files. */
const fileRunner =
  /\b(?:rmtree|rm_rf|rmSync|unlink|remove|rename|writeFile(?:Sync)?|write_text|write_bytes|appendFile(?:Sync)?)\s*\(|open\s*\([^)]*["'][wax]/;

/** Text built from codes, decoders, packing or reversal rather than written out. */
const strongBuilder =
  /\bchr\s*\(|fromCharCode|fromCodePoint|string\.char\s*\(|\bpack\s*\(|\.pack\s*\(|\bunpack\s*\(|b(?:64|32|16|85)decode|decodebytes|base64|atob\s*\(|fromhex|unhexlify|hex2bin|codecs|rot_?13|str_rot13|\[\s*::\s*-1\s*\]|\breverse\b|strrev|gzinflate|gzdecode|zlib|marshal|pickle|bytes\s*\(\s*\[|bytearray|\\x[0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\[0-7]{3}|\.join\s*\(\s*map|\.tr\s*\(|\by\/|\btr\//;

/** Formatting that fills a command in from other values. */
const formatting = /%c|\.format\s*\(|\bsprintf\s*\(|\bf["']/;

/** A runner reached by a computed name: the name is an expression, not one literal. */
const dynamicAccess =
  /\b(?:getattr|__import__|import_module|require|import|globals\(\)\s*\[|vars\(\)\s*\[|__builtins__|send|public_send|const_get|method)\s*\(?\s*[^)]*?["'][^"']*["']\s*(?:\+|\.|\.\.)\s*["']/;

export function computedCodeFinding(code: string): Finding | null {
  const runs = processRunner.test(code);
  const computed =
    dynamicAccess.test(code) ||
    ((runs || fileRunner.test(code)) && strongBuilder.test(code)) ||
    (runs && formatting.test(code));
  if (!computed) return null;
  return {
    decision: "ask",
    rule: "command.eval",
    reason:
      "the interpreter code builds the text it runs or the name it calls (character codes, decoding, packing, reversal, formatting): what runs cannot be read before it runs",
  };
}

/**
 * Adjacent string literals joined in code (`"r" + "m -rf ~"`, `"r" . "m"`, `"r" .. "m"`, Python's
 * `"r" "m"`), folded into one, so the literal checks see the command they spell.
 */
export function foldedLiterals(code: string): string[] {
  const joined = /(["'])((?:\\.|(?!\1)[^\\])*)\1\s*(?:\+|\.\.?|(?=["']))\s*(["'])((?:\\.|(?!\3)[^\\])*)\3/;
  const folded: string[] = [];
  let text = code;
  for (let round = 0; round < 32; round++) {
    const match = joined.exec(text);
    if (!match) break;
    const merged = `${match[2] ?? ""}${match[4] ?? ""}`;
    const quote = merged.includes('"') ? "'" : '"';
    text = `${text.slice(0, match.index)}${quote}${merged}${quote}${text.slice(match.index + match[0].length)}`;
    folded.push(merged);
  }
  return folded;
}
