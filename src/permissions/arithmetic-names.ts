import { subscriptScripts, substitutionsIn } from "./name-subscripts.js";
import type { Finding } from "./shell-words.js";

/**
 * Bash evaluates a variable named in arithmetic (`$((x))`, `((x))`, `$[x]`, `let x`, `[[ x -eq 1 ]]`)
 * as arithmetic again, so a value planted earlier in the command (`x='a[$(rm -rf ~)]'; echo $((x))`)
 * has its array subscript expanded and the substitution there runs. The quotes hid it from the parser
 * and the name carries no `$`, so the speculative pass never saw it (pass 10). Here every name in an
 * arithmetic context is looked up among the values the command itself gives it.
 */

/** The bodies of `$(( … ))`, `(( … ))` and `$[ … ]`, and the operands of `let` and `[[ … -eq … ]]`. */
export function arithmeticBodies(source: string): string[] {
  const bodies: string[] = [];
  for (let start = source.indexOf("(("); start >= 0; start = source.indexOf("((", start + 2)) {
    let depth = 0;
    for (let index = start; index < source.length; index++) {
      if (source[index] === "(") depth += 1;
      else if (source[index] === ")" && --depth === 0) {
        bodies.push(source.slice(start + 2, index - 1));
        break;
      }
    }
  }
  for (const match of source.matchAll(/\$\[([^\]]*)\]/g)) bodies.push(match[1] as string);
  for (const match of source.matchAll(/\blet\s+([^;&|\n]*)/g)) bodies.push(match[1] as string);
  for (const match of source.matchAll(/\[\[([^\]]*-(?:eq|ne|lt|le|gt|ge)\b[^\]]*)\]\]/g))
    bodies.push(match[1] as string);
  return bodies;
}

/** Variable names an arithmetic body reads, with or without `$`. */
export function arithmeticNames(body: string): string[] {
  const names = new Set<string>();
  for (const match of body
    .replace(/'[^']*'/g, " ")
    .matchAll(/(?:^|[^A-Za-z0-9_])\$?\{?([A-Za-z_][A-Za-z0-9_]*)/g))
    names.add(match[1] as string);
  return [...names];
}

export interface PlantedSubscripts {
  scripts: string[];
  findings: Finding[];
}

/**
 * The commands substituted in array subscripts that arithmetic in `source` would expand, from the
 * values `variables` holds for the names it reads, and from subscripts written in the body itself.
 */
export function plantedSubscripts(
  source: string,
  variables: ReadonlyMap<string, readonly string[]>,
): PlantedSubscripts {
  const scripts: string[] = [];
  for (const body of arithmeticBodies(source)) {
    // `$(( 'a[$(rm -rf ~)]' ))`: a subscript spelled inside the quotes of the body itself.
    for (const quoted of body.matchAll(/'([^']*)'/g)) {
      const text = quoted[1] as string;
      const bracket = text.indexOf("[");
      if (bracket >= 0) scripts.push(...substitutionsIn(text.slice(bracket)));
    }
    for (const name of arithmeticNames(body)) {
      for (const value of variables.get(name) ?? [])
        scripts.push(...subscriptScripts("let", [value]).scripts);
    }
  }
  const findings: Finding[] =
    scripts.length > 0
      ? [
          {
            decision: "ask",
            rule: "command.substitution",
            reason:
              "arithmetic reads a variable whose value holds an array subscript; bash expands the subscript, running the command substituted there",
          },
        ]
      : [];
  return { scripts, findings };
}
