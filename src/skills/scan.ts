/** One suspicious line in a skill, found by the static scan before installing. */
export interface ScanFinding {
  file: string;
  line: number;
  rule: "fetch-and-execute" | "exfiltrate-secrets" | "disable-safety";
  excerpt: string;
}

const rules: { rule: ScanFinding["rule"]; pattern: RegExp }[] = [
  // Download piped or substituted into an interpreter: curl … | sh, bash <(curl …), eval "$(wget …)".
  {
    rule: "fetch-and-execute",
    pattern: /\b(curl|wget|fetch|iwr|invoke-webrequest)\b[^\n]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b/i,
  },
  {
    rule: "fetch-and-execute",
    pattern:
      /\b(curl|wget|iwr|invoke-webrequest)\b[^\n]*\|\s*(sudo\s+)?(python3?|node|perl|ruby|php|iex|invoke-expression)\b/i,
  },
  { rule: "fetch-and-execute", pattern: /(source|\.|(ba|z)?sh|eval)\s+[<"]?\s*[<(]?\$?\(\s*(curl|wget)\b/i },
  { rule: "fetch-and-execute", pattern: /base64\s+(-d|--decode)[^\n]*\|\s*(ba|z)?sh\b/i },
  // Secrets read and sent somewhere.
  {
    rule: "exfiltrate-secrets",
    pattern:
      /(\.ssh\/|id_rsa|id_ed25519|\.aws\/credentials|\.mercury\/\.env|\.env\b|\.netrc|\.git-credentials|keychain|api[_-]?key|secret|token|password)[^\n]*(curl|wget|nc\b|netcat|https?:\/\/|webhook|upload|send|post)/i,
  },
  {
    rule: "exfiltrate-secrets",
    pattern:
      /(curl|wget)\b[^\n]*(-d|--data|--data-binary|-F|--form|-T|--upload-file)\s*[^\n]*(@~?\/|\$\(cat|\benv\b|printenv|\$[A-Z_]*(KEY|TOKEN|SECRET))/i,
  },
  { rule: "exfiltrate-secrets", pattern: /\b(printenv|env)\b\s*\|\s*(curl|wget|nc)\b/i },
  // Attempts to switch off the guard rails.
  {
    rule: "disable-safety",
    pattern: /ignore (all |any )?(previous|prior|earlier|above) (instructions|rules)/i,
  },
  {
    rule: "disable-safety",
    pattern:
      /(disable|bypass|turn off|skip|circumvent)\s+(the\s+)?(sandbox|permission|approval|safety|security|guard ?rails?|confirmation)/i,
  },
  { rule: "disable-safety", pattern: /(allow[- ]all|--yes\b|--dangerously|dangerously-skip|auto-?approve)/i },
  {
    rule: "disable-safety",
    pattern: /(without|don'?t|do not|never)\s+(asking|ask|tell|telling|inform)\w*\s+(the\s+)?(user|owner)/i,
  },
];

/** Text files scanned, by size: a skill's instructions and scripts are small. */
const maxScannedBytes = 512 * 1024;

/** Static check of a skill's files: instructions to exfiltrate secrets, fetch-and-execute, disabling safety. */
export function scanSkillFiles(files: readonly { path: string; data: Buffer }[]): ScanFinding[] {
  const findings: ScanFinding[] = [];
  for (const file of files) {
    if (file.data.length > maxScannedBytes || file.data.includes(0)) continue;
    const lines = file.data.toString("utf8").split("\n");
    lines.forEach((text, index) => {
      for (const { rule, pattern } of rules) {
        if (pattern.test(text)) {
          findings.push({ file: file.path, line: index + 1, rule, excerpt: text.trim().slice(0, 160) });
          break;
        }
      }
    });
  }
  return findings;
}
