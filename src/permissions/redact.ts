/**
 * Removes secrets from text stored in the audit log or shown in an approval prompt. Matches are
 * replaced by a label; the rest of the command stays readable.
 */
const patterns: [RegExp, string][] = [
  [/\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}/g, "[redacted:api-key]"],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, "[redacted:github-token]"],
  [/\bgithub_pat_[A-Za-z0-9_]{20,}/g, "[redacted:github-token]"],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, "[redacted:slack-token]"],
  [/\bAKIA[0-9A-Z]{16}\b/g, "[redacted:aws-key]"],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, "[redacted:google-key]"],
  [/\b\d{8,10}:[A-Za-z0-9_-]{35}\b/g, "[redacted:telegram-token]"],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, "[redacted:jwt]"],
  [
    /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z ]*PRIVATE KEY-----|$)/g,
    "[redacted:private-key]",
  ],
  [/\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{12,}/gi, "$1 [redacted]"],
  [
    /\b([A-Za-z0-9_]*(?:PASSWORD|PASSWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY)[A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)/gi,
    "$1=[redacted]",
  ],
  [/(--(?:password|token|secret|api-key|apikey)(?:=|\s+))("[^"]*"|'[^']*'|\S+)/gi, "$1[redacted]"],
  [/(\/\/[^/\s:@]+:)[^@\s/]+@/g, "$1[redacted]@"],
];

export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of patterns) out = out.replace(pattern, replacement);
  return out;
}
