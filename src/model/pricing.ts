/** USD for a call, from the price table (USD per million tokens). Unknown models cost 0 and say so in `mercury usage`. */
export function costOf(
  prices: Record<string, { input: number; output: number }>,
  model: string,
  inputTokens: number,
  outputTokens: number,
): number {
  const price = prices[model];
  if (!price) return 0;
  return (inputTokens * price.input + outputTokens * price.output) / 1_000_000;
}
