import { describe, expect, it } from "vitest";
import { expandBraces } from "../../src/permissions/commands.js";
import { decideNetwork } from "../../src/permissions/decide.js";
import { redactSecrets } from "../../src/permissions/redact.js";
import { decodeAnsiC } from "../../src/permissions/shell-words.js";
import { foldForComparison, hasInvisibleCharacters } from "../../src/permissions/unicode.js";

describe("unicode folding", () => {
  it.each([
    ["\uff52\uff4d", "rm"],
    [".\u0455sh", ".ssh"],
    ["ID_RSA", "id_rsa"],
    ["a\u200bb\u200dc\u2060d", "abcd"],
    ["\u0430ws", "aws"],
  ])("folds %j to %j", (input, folded) => {
    expect(foldForComparison(input)).toBe(folded);
  });

  it("spots invisible characters (zero-width, bidi overrides) and leaves plain text alone", () => {
    expect(hasInvisibleCharacters("a\u202eb")).toBe(true);
    expect(hasInvisibleCharacters("a\ufeffb")).toBe(true);
    expect(hasInvisibleCharacters("plain text é")).toBe(false);
  });
});

describe("shell word helpers", () => {
  it("decodes bash $'...' escapes", () => {
    expect(decodeAnsiC("\\x72\\x6d")).toBe("rm");
    expect(decodeAnsiC("\\162\\155")).toBe("rm");
    expect(decodeAnsiC("\\u0072m")).toBe("rm");
    expect(decodeAnsiC("a\\tb\\n")).toBe("a\tb\n");
  });

  it("expands comma braces like bash", () => {
    expect(expandBraces("{rm,-rf,/}")).toEqual(["rm", "-rf", "/"]);
    expect(expandBraces("a{b,c}d{1,2}")).toEqual(["abd1", "abd2", "acd1", "acd2"]);
    expect(expandBraces("plain")).toEqual(["plain"]);
  });
});

describe("network decisions", () => {
  it("allows public http(s) and leaves DNS checks to the fetch guard", () => {
    expect(decideNetwork("https://example.com/x")).toMatchObject({ decision: "allow", rule: "network.http" });
  });

  it("explains an invalid URL", () => {
    expect(decideNetwork("not a url")).toMatchObject({ decision: "deny", rule: "network.invalid-url" });
  });
});

describe("secret redaction", () => {
  it.each([
    ["OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuv", "sk-proj-abcdefghijklmnopqrstuv"],
    ["curl -H 'Authorization: Bearer abcdefghijklmnopqrstuv'", "abcdefghijklmnopqrstuv"],
    ["git clone https://user:hunter2hunter2@github.com/x", "hunter2hunter2"],
    ["export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123", "ghp_abcdefghijklmnopqrstuvwxyz0123"],
    ["mysql --password=s3cretpassword", "s3cretpassword"],
    ["aws AKIAABCDEFGHIJKLMNOP", "AKIAABCDEFGHIJKLMNOP"],
    ["bot 123456789:AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQr", "AAbbCCddEEffGGhhIIjjKKllMMnnOOppQQr"],
  ])("removes the secret from %j", (input, secret) => {
    const output = redactSecrets(input);
    expect(output).not.toContain(secret);
    expect(output).toMatch(/redacted/);
  });

  it("keeps ordinary commands readable", () => {
    expect(redactSecrets("git status && ls -la src")).toBe("git status && ls -la src");
  });
});
