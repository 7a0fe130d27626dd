/**
 * A line diff for showing a draft to its reviewer: `-` old lines, `+` new lines, two lines of
 * context around each change. Longest-common-subsequence over lines; skills are small files.
 */
export function lineDiff(before: string, after: string, context = 2): string {
  const a = before === "" ? [] : before.split("\n");
  const b = after.split("\n");
  const rows = a.length + 1;
  const cols = b.length + 1;
  const table = new Uint32Array(rows * cols);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i * cols + j] =
        a[i] === b[j]
          ? (table[(i + 1) * cols + j + 1] ?? 0) + 1
          : Math.max(table[(i + 1) * cols + j] ?? 0, table[i * cols + j + 1] ?? 0);
    }
  }
  const lines: { mark: " " | "-" | "+"; text: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push({ mark: " ", text: a[i] as string });
      i++;
      j++;
    } else if (
      j < b.length &&
      (i >= a.length || (table[i * cols + j + 1] ?? 0) >= (table[(i + 1) * cols + j] ?? 0))
    ) {
      lines.push({ mark: "+", text: b[j] as string });
      j++;
    } else {
      lines.push({ mark: "-", text: a[i] as string });
      i++;
    }
  }
  const keep = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.mark === " ") return;
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++)
      keep[k] = true;
  });
  const out: string[] = [];
  let skipped = false;
  lines.forEach((line, index) => {
    if (!keep[index]) {
      skipped = true;
      return;
    }
    if (skipped) out.push("@@");
    skipped = false;
    out.push(`${line.mark}${line.text}`);
  });
  return out.length === 0 ? "(no change)" : out.join("\n");
}
