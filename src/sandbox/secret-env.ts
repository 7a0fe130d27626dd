/**
 * The sandbox's own wall against credentials in the environment, behind the tools' `scrubbedEnv`
 * (which drops names with API_KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL, PRIVATE_KEY). Found in
 * session 8: names that hold credentials by convention passed that list — `MYSQL_PWD`,
 * `AWS_ACCESS_KEY_ID`, `SENTRY_DSN`, `GITHUB_PAT`, `npm_config__auth`, `STRIPE_KEY`, a `*_PASSPHRASE`,
 * a CI job's JWT — and reached every command. bwrap unsets each name of Mercury's own environment that
 * matches either list (`--unsetenv`: names only, so no value is written on a command line). A URL
 * holding a password (`DATABASE_URL`) is left: projects' test commands need it, and it names a
 * development database more often than not.
 */
const secretName =
  /(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_KEY|ACCESS_KEY|_KEY$|_PWD$|_PASS$|_AUTH$|^AUTH_|_DSN$|_PAT$|JWT|COOKIE)/i;

export function isSecretEnvName(name: string): boolean {
  return secretName.test(name);
}

/** bwrap arguments unsetting every secret-looking name of `env` (Mercury's environment). */
export function unsetSecretEnvArgs(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.keys(env)
    .filter(isSecretEnvName)
    .flatMap((name) => ["--unsetenv", name]);
}
