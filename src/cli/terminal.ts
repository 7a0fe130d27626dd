/** Colors only for a real terminal, and never when NO_COLOR is set (https://no-color.org). */
/** Colour on a terminal; NO_COLOR turns it off, FORCE_COLOR (not "0") on, as most tools agree. */
function colors(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR) return false;
  const forced = process.env.FORCE_COLOR;
  if (forced !== undefined && forced !== "") return forced !== "0";
  return Boolean(stream.isTTY);
}

export function stderrColors(): boolean {
  return colors(process.stderr);
}

export function stdoutColors(): boolean {
  return colors(process.stdout);
}
