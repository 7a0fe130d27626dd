/** "in 4 min", "in 45 s", "2 h ago": how far `target` is from now, for people rather than logs. */
export function relativeTime(target: Date | string, now: Date = new Date()): string {
  const at = typeof target === "string" ? new Date(target) : target;
  const deltaMs = at.getTime() - now.getTime();
  if (!Number.isFinite(deltaMs)) return String(target);
  const seconds = Math.round(Math.abs(deltaMs) / 1000);
  // "0 s ago" reads like a glitch; a moment ago is what people say.
  if (deltaMs < 0 && seconds < 5) return "just now";
  const amount =
    seconds < 60
      ? `${seconds} s`
      : seconds < 3600
        ? `${Math.round(seconds / 60)} min`
        : seconds < 86_400
          ? `${Math.round(seconds / 360) / 10} h`
          : `${Math.round(seconds / 8640) / 10} days`;
  return deltaMs >= 0 ? `in ${amount}` : `${amount} ago`;
}
