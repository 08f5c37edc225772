import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../../../test/support/network.js';

const DEBIAN_WORDPRESS = '/usr/share/wordpress';
const THEME_DIR = new URL('./test-theme/', import.meta.url).pathname;
/** Must-use plugins of the test site: WooCommerce's single-product callbacks, no update checks (no network), no mail (no sendmail). */
const MU_PLUGINS = ['woocommerce-hook.php', 'offline.php', 'no-mail.php'].map((name) => new URL(`./${name}`, import.meta.url).pathname);
export const ADMIN = { login: 'admin', password: 'admin-password-4b1e' } as const;
export const EDITOR = { login: 'editor', password: 'editor-password-8c2f' } as const;

export interface WordPressSite {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly root: string;
  /** WP_DEBUG_LOG's file: every PHP warning, notice and the plugin's own log lines. */
  readonly debugLog: string;
  /** Runs PHP inside WordPress (wp-load.php) and returns what the code returns, through JSON. */
  php<T = unknown>(code: string): T;
  /** The debug log so far ('' when nothing was written). */
  readDebugLog(): string;
  clearDebugLog(): void;
  stop(): Promise<void>;
}

function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const look = () => {
      if (condition()) resolve();
      else if (Date.now() > deadline) reject(new Error(`${what}: not ready within ${timeoutMs} ms`));
      else setTimeout(look, 100);
    };
    look();
  });
}

/** Whether any process of the group led by `pid` is still running. */
function processGroupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** MariaDB on a private data directory and unix socket, root without a password; gone on stop. */
async function startMariaDb(dir: string): Promise<{ socket: string; process: ChildProcess }> {
  const dataDir = join(dir, 'mysql');
  const socket = join(dir, 'mysql.sock');
  // A temporary directory of its own: bootstraps started at once in the shared /tmp collide on their
  // temporary tables' names ("Unknown table 'mysql.tmp_user_sys'", install failed) when several test
  // files start their sites together.
  const tmpDir = join(dir, 'mysql-tmp');
  mkdirSync(tmpDir);
  execFileSync(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--tmpdir=${tmpDir}`,
      '--user=root',
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ],
    { stdio: 'ignore' },
  );
  const mariadb = spawn(
    'mariadbd',
    [
      '--no-defaults',
      `--datadir=${dataDir}`,
      `--tmpdir=${tmpDir}`,
      `--socket=${socket}`,
      '--skip-networking',
      '--user=root',
      `--pid-file=${join(dir, 'mysql.pid')}`,
      `--log-error=${join(dir, 'mysql.err')}`,
      // A test database: speed over durability.
      '--innodb-flush-log-at-trx-commit=0',
      '--innodb-buffer-pool-size=32M',
      '--skip-log-bin',
    ],
    { stdio: 'ignore' },
  );
  await waitFor(() => existsSync(socket), 30_000, 'MariaDB');
  execFileSync('mariadb', ['--no-defaults', `--socket=${socket}`, '-uroot', '-e', 'CREATE DATABASE wordpress']);
  return { socket, process: mariadb };
}

function wpConfig(url: string, socket: string, debugLog: string): string {
  const key = () => randomBytes(24).toString('hex');
  const keys = [
    'AUTH_KEY',
    'SECURE_AUTH_KEY',
    'LOGGED_IN_KEY',
    'NONCE_KEY',
    'AUTH_SALT',
    'SECURE_AUTH_SALT',
    'LOGGED_IN_SALT',
    'NONCE_SALT',
  ];
  return `<?php
define( 'DB_NAME', 'wordpress' );
define( 'DB_USER', 'root' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', 'localhost:${socket}' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
${keys.map((name) => `define( '${name}', '${key()}' );`).join('\n')}
$table_prefix = 'wp_';
define( 'WP_DEBUG', true );
define( 'WP_DEBUG_LOG', '${debugLog}' );
define( 'WP_DEBUG_DISPLAY', false );
define( 'WP_HOME', '${url}' );
define( 'WP_SITEURL', '${url}' );
// Application passwords over http, for the REST tests.
define( 'WP_ENVIRONMENT_TYPE', 'local' );
define( 'DISABLE_WP_CRON', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
// No network here: WordPress's own calls home fail at once instead of waiting for DNS. Loopback stays allowed.
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
`;
}

/** php -S serves files itself; everything else (pretty permalinks, /wp-json/, /index.php/…) goes to WordPress. */
function router(root: string): string {
  return `<?php
$path = (string) parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH );
$file = ${JSON.stringify(root)} . $path;
if ( is_dir( $file ) && is_file( rtrim( $file, '/' ) . '/index.php' ) ) {
	$file = rtrim( $file, '/' ) . '/index.php';
	$path = rtrim( $path, '/' ) . '/index.php';
}
if ( is_file( $file ) && ! str_ends_with( $file, '.php' ) ) {
	return false;
}
if ( ! is_file( $file ) ) {
	$file = ${JSON.stringify(root)} . '/index.php';
	$path = '/index.php';
}
$_SERVER['SCRIPT_NAME']     = $path;
$_SERVER['PHP_SELF']        = $path;
$_SERVER['SCRIPT_FILENAME'] = $file;
chdir( dirname( $file ) );
require $file;
`;
}

/** Whether php -S left the port to someone else: it exits at once when the port is taken. */
function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Starts php -S on a free port and proves that the server answering there is this one (a file
 * with a random word, served back), trying another port when it is not. A port found free can
 * be taken before php -S binds it when other suites open servers and connections at the same
 * time (the full CI run); a readiness check that only connects would then send the tests to
 * someone else's server. `configure` writes what depends on the port before each try.
 */
async function serveOnFreshPort(
  dir: string,
  root: string,
  workers: number,
  configure: (port: number) => void,
): Promise<{ server: ChildProcess; port: number }> {
  const word = randomBytes(12).toString('hex');
  writeFileSync(join(root, 'live-visitors-ready.txt'), word);
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    configure(port);
    // A process group of its own: php -S forks its workers, and they must go with it.
    const server = spawn('php', ['-S', `127.0.0.1:${port}`, '-t', root, join(dir, 'router.php')], {
      env: { ...process.env, PHP_CLI_SERVER_WORKERS: String(workers) },
      stdio: 'ignore',
      detached: true,
    });
    let ours = false;
    const deadline = Date.now() + 15_000;
    while (!ours && !exited(server) && Date.now() < deadline) {
      ours = await fetch(`http://127.0.0.1:${port}/live-visitors-ready.txt`)
        .then(async (response) => (await response.text()) === word)
        .catch(() => false);
      if (!ours) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (ours && !exited(server)) return { server, port };
    if (server.pid !== undefined && !exited(server)) process.kill(-server.pid, 'SIGKILL');
    if (attempt === 3) throw new Error(`php -S: no port of its own after ${attempt} tries (last ${port})`);
  }
}

/**
 * A real WordPress on a loopback port: Debian's 6.1 copied with links followed, its own
 * wp-config.php (WP_DEBUG and WP_DEBUG_LOG on), MariaDB, PHP's built-in server with several
 * workers (one would make every lock test pass by luck), installed, with pretty permalinks,
 * an administrator and an editor, the test theme, and the plugin from its installable zip.
 */
export async function startWordPress(options: { pluginZip: string; workers?: number }): Promise<WordPressSite> {
  const dir = mkdtempSync(join(tmpdir(), 'live-visitors-wp-'));
  const root = join(dir, 'site');
  const debugLog = join(dir, 'debug.log');
  const { socket, process: mariadb } = await startMariaDb(dir);

  cpSync(DEBIAN_WORDPRESS, root, { recursive: true, dereference: true });
  writeFileSync(join(dir, 'router.php'), router(root));
  cpSync(THEME_DIR, join(root, 'wp-content', 'themes', 'live-visitors-test'), { recursive: true });
  mkdirSync(join(root, 'wp-content', 'mu-plugins'), { recursive: true });
  for (const file of MU_PLUGINS) cpSync(file, join(root, 'wp-content', 'mu-plugins', file.split('/').pop()!));
  execFileSync('unzip', ['-q', options.pluginZip, '-d', join(root, 'wp-content', 'plugins')]);

  const cli = join(dir, 'cli.php');
  const { server, port } = await serveOnFreshPort(dir, root, options.workers ?? 8, (port) =>
    writeFileSync(join(root, 'wp-config.php'), wpConfig(`http://127.0.0.1:${port}`, socket, debugLog)),
  );
  const url = `http://127.0.0.1:${port}`;
  writeFileSync(
    cli,
    `<?php
$_SERVER['HTTP_HOST'] = '127.0.0.1:${port}';
$_SERVER['REQUEST_URI'] = '/';
$_SERVER['SERVER_PROTOCOL'] = 'HTTP/1.1';
$_SERVER['REQUEST_METHOD'] = 'GET';
if ( getenv( 'LV_INSTALLING' ) ) {
	define( 'WP_INSTALLING', true );
}
require ${JSON.stringify(join(root, 'wp-load.php'))};
require_once ABSPATH . 'wp-admin/includes/plugin.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
require_once ABSPATH . 'wp-admin/includes/file.php';
echo "\\n@@result@@" . wp_json_encode( ( function () { return eval( stream_get_contents( STDIN ) ); } )() );
`,
  );
  const php = <T>(code: string, env: Record<string, string> = {}): T => {
    const out = execFileSync('php', [cli], { input: code, env: { ...process.env, ...env }, encoding: 'utf8' });
    const marker = out.lastIndexOf('@@result@@');
    if (marker < 0) throw new Error(`PHP printed no result: ${out}`);
    return JSON.parse(out.slice(marker + '@@result@@'.length)) as T;
  };

  php(
    `wp_install( 'Live visitors test shop', '${ADMIN.login}', 'admin@example.com', true, '', '${ADMIN.password}' );
     update_option( 'permalink_structure', '/%postname%/' );
     flush_rewrite_rules( false );
     switch_theme( 'live-visitors-test' );
     wp_insert_user( array( 'user_login' => '${EDITOR.login}', 'user_pass' => '${EDITOR.password}', 'role' => 'editor', 'user_email' => 'editor@example.com' ) );
     return true;`,
    { LV_INSTALLING: '1' },
  );

  return {
    url,
    root,
    debugLog,
    php: (code) => php(code),
    readDebugLog: () => (existsSync(debugLog) ? readFileSync(debugLog, 'utf8') : ''),
    clearDebugLog: () => rmSync(debugLog, { force: true }),
    async stop() {
      // Both gone before their files: a PHP worker still writing would race the removal.
      const exits = [server, mariadb]
        .filter((child) => child.exitCode === null && child.signalCode === null)
        .map((child) => new Promise((resolve) => child.once('exit', resolve)));
      // The whole group: SIGTERM to php -S alone leaves its forked workers listening.
      if (server.pid !== undefined) process.kill(-server.pid, 'SIGTERM');
      mariadb.kill('SIGTERM');
      await Promise.all(exits);
      await waitFor(() => !processGroupAlive(server.pid), 5_000, 'php -S workers to exit');
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
