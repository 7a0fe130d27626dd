/**
 * HTML built from templates where every interpolated value is escaped unless it is already `Html`
 * (made by this tag). Memories, transcripts, tool output and log lines are attacker-controlled:
 * there is no way to put a plain string into a page unescaped.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const replacements: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => replacements[character] ?? character);
}

type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) {
    out += render(values[index] as Interpolation) + (strings[index + 1] ?? "");
  }
  return new Html(out);
}

/**
 * A URL path built from fixed segments and escaped parameters: only our own routes go into `href`
 * and `action`, never a URL from data (no `javascript:` link can be made from a memory).
 */
export function path(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = strings[0] ?? "";
  for (let index = 0; index < values.length; index++) {
    out += encodeURIComponent(String(values[index])) + (strings[index + 1] ?? "");
  }
  return out;
}
