/** Colors only for a real terminal, and never when NO_COLOR is set (https://no-color.org). */
export function stderrColors(): boolean {
  return Boolean(process.stderr.isTTY) && !process.env.NO_COLOR;
}

export function stdoutColors(): boolean {
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
}
