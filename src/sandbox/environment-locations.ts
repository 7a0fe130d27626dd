import { isAbsolute, join } from "node:path";

/**
 * Secret places that Mercury's own environment names, wherever they are. The permission engine's
 * list (sensitive.ts) knows the usual spellings (`~/.ssh`, `~/.docker/run`); a user's tools often put
 * them elsewhere and say where in a variable. Found in session 10: an ssh-agent at
 * `~/.local/agent.sock` (`SSH_AUTH_SOCK`) and a Neovim server (`$NVIM`, which runs any command sent to
 * it) were reachable from every command — connecting to a socket is not a write, so the read-only home
 * did not stop it. The same holds for a terminal multiplexer's socket (tmux `send-keys` types into the
 * user's shell), an editor's IPC socket, a window manager's (sway and i3 run `exec …`), a container
 * engine's (root on the host), and for credential files a variable moves away from the default (a
 * Google service-account key, a kubeconfig, a Kerberos ticket cache).
 *
 * Each location found is hidden like the list's (masks.ts): a socket or file covered by an empty
 * read-only file, a folder by an empty read-only tmpfs. Values that are not absolute paths (a TCP
 * address, an abstract socket: the sandbox's network namespace already cuts those off) are ignored.
 */
type Reader = (value: string, env: NodeJS.ProcessEnv) => string[];

const path: Reader = (value) => [value];
/** `unix://PATH` (Docker, Podman). */
const unixUrl: Reader = (value) => (value.startsWith("unix://") ? [value.slice("unix://".length)] : []);
/** `unix:PATH` (kitty, PulseAudio). */
const unixPrefix: Reader = (value) => (value.startsWith("unix:") ? [value.slice("unix:".length)] : []);
/** The first comma-separated field (tmux: `socket,pid,session`). */
const firstField: Reader = (value) => [value.split(",")[0] ?? ""];
/** The part before the first colon (gpg's `path:pid:1`). */
const beforeColon: Reader = (value) => [value.split(":")[0] ?? ""];
/** A colon-separated list of paths (KUBECONFIG). */
const pathList: Reader = (value) => value.split(":");
/** D-Bus addresses: `unix:path=…,guid=…;unix:abstract=…`. */
const dbus: Reader = (value) =>
  value
    .split(";")
    .map((address) => /^unix:(?:.*,)?path=([^,]+)/.exec(address)?.[1])
    .filter((found): found is string => found !== undefined)
    .map((found) => decodeURIComponent(found));
/** Kerberos caches: `FILE:/path`, `DIR:/path`, or a bare path. */
const kerberos: Reader = (value) => {
  const match = /^(?:FILE|DIR):(.*)$/.exec(value);
  if (match) return [match[1] ?? ""];
  return value.includes(":") ? [] : [value];
};
/** Wayland: an absolute path, or a name inside XDG_RUNTIME_DIR. */
const wayland: Reader = (value, env) =>
  isAbsolute(value) ? [value] : env.XDG_RUNTIME_DIR ? [join(env.XDG_RUNTIME_DIR, value)] : [];

const readers: Record<string, Reader> = {
  // Agents that sign or decrypt with the user's keys.
  SSH_AUTH_SOCK: path,
  GPG_AGENT_INFO: beforeColon,
  GNUPGHOME: path,
  // Daemons that run what they are sent: container engines (root on the host), session buses.
  DOCKER_HOST: unixUrl,
  CONTAINER_HOST: unixUrl,
  DBUS_SESSION_BUS_ADDRESS: dbus,
  DBUS_SYSTEM_BUS_ADDRESS: dbus,
  XDG_RUNTIME_DIR: path,
  // Terminals, multiplexers, editors and window managers that type or run commands for the user.
  TMUX: firstField,
  TMUX_TMPDIR: path,
  SCREENDIR: path,
  NVIM: path,
  NVIM_LISTEN_ADDRESS: path,
  EMACS_SOCKET_NAME: path,
  KITTY_LISTEN_ON: unixPrefix,
  WEZTERM_UNIX_SOCKET: path,
  ALACRITTY_SOCKET: path,
  VSCODE_IPC_HOOK: path,
  VSCODE_IPC_HOOK_CLI: path,
  VSCODE_GIT_IPC_HANDLE: path,
  SWAYSOCK: path,
  I3SOCK: path,
  WAYLAND_DISPLAY: wayland,
  PULSE_SERVER: unixPrefix,
  // Credential files and folders moved from their default place.
  GOOGLE_APPLICATION_CREDENTIALS: path,
  CLOUDSDK_CONFIG: path,
  AWS_SHARED_CREDENTIALS_FILE: path,
  AWS_CONFIG_FILE: path,
  AZURE_CONFIG_DIR: path,
  KUBECONFIG: pathList,
  DOCKER_CONFIG: path,
  KRB5CCNAME: kerberos,
  KRB5_KTNAME: kerberos,
  NETRC: path,
  NPM_CONFIG_USERCONFIG: path,
  npm_config_userconfig: path,
  TF_CLI_CONFIG_FILE: path,
  PASSWORD_STORE_DIR: path,
  VAULT_CONFIG_PATH: path,
  PGPASSFILE: path,
  MYSQL_TEST_LOGIN_FILE: path,
  REGISTRY_AUTH_FILE: path,
};

/**
 * Daemon sockets outside /run and /tmp (which the sandbox replaces with its own): LXD and Incus give
 * whoever reaches them root on the host, and on a system where /var/run is a folder of its own
 * rather than a link to /run, its sockets are all there.
 */
export const systemSocketLocations = [
  "/var/run",
  "/var/snap/lxd/common/lxd/unix.socket",
  "/var/lib/lxd/unix.socket",
  "/var/lib/incus/unix.socket",
];

/** Absolute paths that `env` names as secret places (not checked for existence). */
export function environmentLocations(env: NodeJS.ProcessEnv = process.env): string[] {
  const found = new Set<string>();
  for (const [name, read] of Object.entries(readers)) {
    const value = env[name];
    if (value === undefined || value.trim() === "") continue;
    for (const location of read(value.trim(), env)) if (isAbsolute(location)) found.add(location);
  }
  return [...found];
}
