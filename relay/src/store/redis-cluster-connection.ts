import { createCluster } from 'redis';
import { withDeadline } from '../../../server-kit/deadline.js';
import { errorCode } from '../../../server-kit/error-code.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import { type After, type Cancel, systemTimers } from '../../../src/contract/timers.js';
import { Redactor } from '../redaction.js';
import { checkCommandTimeout, DEFAULT_COMMAND_TIMEOUT_MS, type RedisLink, type Reply } from './redis-connection.js';
import type { RedisTarget } from './redis-url.js';

const CONNECT_TIMEOUT_MS = rules.storeConnectTimeoutMs;
/** Reconnection back-off of each node's connection, and how often a cluster not reached yet is tried again. */
const MAX_RECONNECT_DELAY_MS = 1_000;
/** `close()` lets commands in flight finish this long, then cuts the connections. */
const CLOSE_GRACE_MS = 1_000;

type Cluster = ReturnType<typeof newCluster>;

/**
 * A Redis Cluster, for a fleet larger than one Redis holds: node-redis's cluster client, which
 * reads the slot map from a seed node and sends each command to the node owning its first key.
 * Like `RedisConnection`: the relay starts while the cluster is unreachable (tried again every
 * second), commands fail fast while it is down, every command is bounded, one line per outage.
 * Every command of the relay's stores names one key (or, in a script, keys of one website sharing
 * a hash tag), so no command spans slots.
 */
export class RedisClusterConnection implements RedisLink {
  readonly #cluster: Cluster;
  readonly #target: RedisTarget;
  readonly #log: (line: string) => void;
  readonly #redactor: Redactor;
  readonly #timeoutMs: number;
  readonly #timers: After;
  #connected = false;
  #outageLogged = false;
  #cancelRetry: Cancel | undefined;
  #closing: Promise<void> | undefined;

  private constructor(target: RedisTarget, log: (line: string) => void, timeoutMs: number, timers: After) {
    this.#cluster = newCluster(target);
    this.#target = target;
    this.#log = log;
    this.#redactor = new Redactor([target.password]);
    this.#timeoutMs = timeoutMs;
    this.#timers = timers;
    // Without a listener an 'error' event would throw and end the process.
    this.#cluster.on('error', (error: unknown) => this.#outage(error));
    this.#cluster.on('node-error', (error: unknown) => this.#outage(error));
    this.#cluster.on('node-ready', () => this.#answersAgain());
  }

  /** Resolves once the cluster's slot map was read, or after the first failure (logged): the relay starts and serves while it is down. */
  static async open(
    target: RedisTarget,
    log: (line: string) => void,
    commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
    timers: After = systemTimers,
  ): Promise<RedisClusterConnection> {
    checkCommandTimeout(commandTimeoutMs);
    const connection = new RedisClusterConnection(target, log, commandTimeoutMs, timers);
    await connection.#connect();
    return connection;
  }

  get label(): string {
    return this.#target.label;
  }

  async #connect(): Promise<void> {
    try {
      await withDeadline(this.#timers, 2 * CONNECT_TIMEOUT_MS, `no answer within ${2 * CONNECT_TIMEOUT_MS} ms`, () =>
        this.#cluster.connect(),
      );
      this.#connected = true;
      this.#answersAgain();
    } catch (error) {
      this.#outage(error);
      if (this.#cluster.isOpen) this.#cluster.destroy();
      if (this.#closing) return;
      this.#cancelRetry = this.#timers.after(MAX_RECONNECT_DELAY_MS, () => {
        this.#cancelRetry = undefined;
        this.#connect().catch(() => {});
      });
    }
  }

  /** Sent to the node that owns the command's first key; bounded here, since a frozen node never answers. */
  async send(args: string[]): Promise<Reply> {
    if (!this.#connected) throw new Error(`the cluster was not reached yet`);
    const sent = this.#cluster.sendCommand(firstKey(args), false, args);
    return withDeadline(this.#timers, this.#timeoutMs, `no answer within ${this.#timeoutMs} ms`, () => sent);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#cancelRetry?.();
      if (!this.#cluster.isOpen) return;
      try {
        await withDeadline(this.#timers, CLOSE_GRACE_MS, 'close', () => this.#cluster.close());
      } catch {
        if (this.#cluster.isOpen) this.#cluster.destroy();
      }
    })();
    return this.#closing;
  }

  #outage(error: unknown): void {
    if (this.#closing || this.#outageLogged) return;
    this.#outageLogged = true;
    this.say(
      `store: Redis Cluster at ${this.#target.label} is unreachable or failed (${this.describe(error)}); ` +
        'the relay serves alone within storeDownBudget and keeps reconnecting',
    );
  }

  #answersAgain(): void {
    if (!this.#outageLogged) return;
    this.#outageLogged = false;
    this.say(`store: Redis Cluster at ${this.#target.label} answers again; the fleet coordinates again`);
  }

  describe(error: unknown): string {
    const code = errorCode(error);
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 200);
    const text = !code || message.includes(code) ? message : message === '' ? code : `${code}: ${message}`;
    return this.#redactor.clean(text) || 'unknown error';
  }

  say(line: string): void {
    try {
      this.#log(this.#redactor.clean(line));
    } catch {
      // A broken logger must not break the store.
    }
  }
}

/** The key that picks the node: a script's first key, else the command's first argument; none for PING. */
function firstKey(args: readonly string[]): string | undefined {
  const command = args[0]?.toUpperCase();
  if (command === 'PING') return undefined;
  if (command === 'EVAL' || command === 'EVALSHA') return Number(args[2]) > 0 ? args[3] : undefined;
  return args[1];
}

function newCluster(target: RedisTarget) {
  return createCluster({
    rootNodes: (target.clusterSeeds ?? []).map(({ host, port }) => ({ socket: { host, port } })),
    defaults: {
      socket: {
        ...(target.tls ? { tls: true as const } : {}),
        connectTimeout: CONNECT_TIMEOUT_MS,
        reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 50),
      },
      ...(target.username === undefined ? {} : { username: target.username }),
      ...(target.password === undefined ? {} : { password: target.password }),
      disableOfflineQueue: true,
    },
  });
}
