import { createClient, ErrorReply } from 'redis';
import { DeadlineExceeded, withDeadline } from '../../../server-kit/deadline.js';
import { errorCode } from '../../../server-kit/error-code.js';
import rules from '../../../src/contract/rules.json' with { type: 'json' };
import { type After, type Cancel, systemTimers } from '../../../src/contract/timers.js';
import { Redactor } from '../redaction.js';
import type { RedisTarget } from './redis-url.js';

/** Browsers wait on the store: a hung Redis must cost them half a second, not their patience. */
export const DEFAULT_COMMAND_TIMEOUT_MS = rules.storeCommandTimeoutMs;

/** A bound on every command, single Redis or cluster alike: from 1 ms to a minute. */
export function checkCommandTimeout(commandTimeoutMs: number): void {
  if (!(commandTimeoutMs > 0 && commandTimeoutMs <= 60_000)) {
    throw new Error(`RedisStore commandTimeoutMs must be from 1 to 60000 (got ${commandTimeoutMs})`);
  }
}
/** A Redis that takes SYN but never the connection (a dead host, a firewall) is given up on this fast. */
const CONNECT_TIMEOUT_MS = rules.storeConnectTimeoutMs;
/**
 * Reconnection back-off: 50, 100, 200… ms up to this cap. Short, so a fleet coordinates again
 * within a second of Redis coming back, under one interval of the shortest config.
 */
const MAX_RECONNECT_DELAY_MS = 1_000;
/** How long `connect()` waits for a first answer from a server that accepted the connection. */
const FIRST_CONTACT_MS = 2 * CONNECT_TIMEOUT_MS;
/** A server that sent something else than RESP is connected to again after this long. */
const PROTOCOL_ERROR_RECONNECT_MS = 1_000;
/** `close()` lets commands in flight finish this long, then cuts the connection. */
const CLOSE_GRACE_MS = 1_000;

type RedisClient = ReturnType<typeof newClient>;
/** What Redis answered: checked by whoever asked before use. */
export type Reply = unknown;

/** What a store needs of its way to Redis: one Redis (`RedisConnection`) or a Redis Cluster (`RedisClusterConnection`). */
export interface RedisLink {
  /** The URL without credentials: for messages. */
  readonly label: string;
  /** One command, bounded; rejects with the cause. */
  send(args: string[]): Promise<Reply>;
  /** The cause in a few words, never the password. */
  describe(error: unknown): string;
  /** One log line, never the password. */
  say(line: string): void;
  close(): Promise<void>;
}

/**
 * One connection to Redis and its health: connects (without failing the relay's start while Redis
 * is down), reconnects by itself, starts over after bytes that are not Redis's protocol, logs one
 * line per outage and its end (never the password), bounds every command, and closes gracefully.
 * What the commands mean is the store's business (redis-store.ts).
 *
 * Every wait of its own (a command's bound, the first contact, starting over, the close) runs on
 * the injected timers; the client's socket timeouts inside node-redis run on the system's and are
 * only ever shorter backstops.
 */
export class RedisConnection implements RedisLink {
  readonly #client: RedisClient;
  readonly #target: RedisTarget;
  readonly #log: (line: string) => void;
  /** Keeps the URL's password out of every line, in every form the relay's redactor knows. */
  readonly #redactor: Redactor;
  readonly #timeoutMs: number;
  readonly #timers: After;
  #hasBeenReady = false;
  /** An outage was logged, so its end will be too; one line per outage, not per reconnection attempt. */
  #outageLogged = false;
  /** A server that does not speak RESP is said once per connection: it would repeat every reconnection. */
  #protocolErrorLogged = false;
  #cancelReconnect: Cancel | undefined;
  #closing: Promise<void> | undefined;

  private constructor(target: RedisTarget, log: (line: string) => void, timeoutMs: number, timers: After) {
    this.#client = newClient(target, timeoutMs);
    this.#target = target;
    this.#log = log;
    this.#redactor = new Redactor([target.password]);
    this.#timeoutMs = timeoutMs;
    this.#timers = timers;
    // Without a listener an 'error' event would throw and end the process.
    this.#client.on('error', (error: unknown) => this.#onClientError(error));
    this.#client.on('ready', () => this.#onReady());
  }

  /**
   * Resolves when Redis answered, or after its first failure (logged, naming `store` and the
   * cause): the relay must start and serve while Redis is down, and the client keeps reconnecting.
   */
  static async open(
    target: RedisTarget,
    log: (line: string) => void,
    commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS,
    timers: After = systemTimers,
  ): Promise<RedisConnection> {
    checkCommandTimeout(commandTimeoutMs);
    const connection = new RedisConnection(target, log, commandTimeoutMs, timers);
    await connection.#firstContact();
    return connection;
  }

  /** `redis://host:port/db`, without credentials: for messages. */
  get label(): string {
    return this.#target.label;
  }

  async #firstContact(): Promise<void> {
    const client = this.#client;
    let settle: () => void = () => {};
    const contact = new Promise<void>((resolve) => {
      settle = resolve;
    });
    client.once('ready', settle);
    client.once('error', settle);
    // A server that accepts but never finishes the handshake emits neither: wait a bounded time.
    const cancel = this.#timers.after(FIRST_CONTACT_MS, () => {
      if (!this.#hasBeenReady && !this.#outageLogged) {
        this.#outageLogged = true;
        this.say(
          `store: Redis at ${this.#target.label} did not answer within ${FIRST_CONTACT_MS} ms; the relay starts anyway and keeps waiting for it`,
        );
      }
      settle();
    });
    // Rejects only when the client is closed before it ever connected; the 'error' event told why.
    client.connect().catch(() => {});
    try {
      await contact;
    } finally {
      cancel();
      client.off('ready', settle);
      client.off('error', settle);
    }
  }

  /**
   * One command, bounded. The client's own timeout only covers the wait before the command is
   * written; a Redis that takes the command and never answers (hung, frozen) is bounded here. Its
   * late reply still arrives in order and goes to the abandoned command, so nothing gets out of step.
   * Abandoned commands stay bounded too: once the socket's buffers are full the client stops
   * writing, and its own timeout drops what waits to be written.
   */
  async send(args: string[]): Promise<Reply> {
    const sent = this.#client.sendCommand(args);
    return withDeadline(this.#timers, this.#timeoutMs, `no answer within ${this.#timeoutMs} ms`, () => sent);
  }

  /** Lets commands in flight finish (a second at most), then cuts the connection. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#cancelReconnect?.();
      const client = this.#client;
      if (!client.isOpen) return;
      try {
        if (!client.isReady) throw new DeadlineExceeded('not connected');
        await withDeadline(this.#timers, CLOSE_GRACE_MS, 'close', () => client.close());
      } catch {
        if (client.isOpen) client.destroy();
      }
    })();
    return this.#closing;
  }

  #onClientError(error: unknown): void {
    if (this.#closing) return;
    if (isProtocolError(error)) {
      this.#startOver(error);
      return;
    }
    if (this.#outageLogged) return;
    this.#outageLogged = true;
    const cause = this.describe(error);
    const what =
      error instanceof ErrorReply
        ? `refused the connection (${cause})`
        : this.#hasBeenReady
          ? `failed (${cause})`
          : `is unreachable (${cause})`;
    this.say(
      this.#hasBeenReady
        ? `store: Redis at ${this.#target.label} ${what}; the relay serves alone within storeDownBudget until it is back`
        : `store: Redis at ${this.#target.label} ${what}; the relay starts anyway, serving alone within storeDownBudget, and keeps reconnecting`,
    );
  }

  /**
   * Bytes that are not RESP lose the replies they stood for, and every later reply would go to the
   * wrong command (a claim could read another command's OK): drop the connection, which rejects
   * every command waiting, and connect afresh a little later.
   */
  #startOver(error: unknown): void {
    if (this.#cancelReconnect !== undefined) return;
    if (!this.#protocolErrorLogged) {
      this.#protocolErrorLogged = true;
      this.say(
        `store: Redis at ${this.#target.label} sent something that is not Redis's protocol (${this.describe(error)}); ` +
          `reconnecting every ${PROTOCOL_ERROR_RECONNECT_MS} ms while it does. Is it Redis?`,
      );
    }
    try {
      if (this.#client.isOpen) this.#client.destroy();
    } catch {
      // Already closed: the timer below opens it again.
    }
    this.#cancelReconnect = this.#timers.after(PROTOCOL_ERROR_RECONNECT_MS, () => {
      this.#cancelReconnect = undefined;
      if (!this.#closing && !this.#client.isOpen) this.#client.connect().catch(() => {});
    });
  }

  #onReady(): void {
    this.#hasBeenReady = true;
    if (!this.#outageLogged) return;
    this.#outageLogged = false;
    this.say(`store: Redis at ${this.#target.label} answers again; the fleet coordinates again`);
  }

  /** The cause in a few words: an error code (ECONNREFUSED…) or the client's message, never the password. */
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

/** What the client's RESP decoder throws on a byte that starts no reply. */
function isProtocolError(error: unknown): boolean {
  return error instanceof Error && !(error instanceof ErrorReply) && error.message.startsWith('Unknown RESP type');
}

function newClient(target: RedisTarget, commandTimeoutMs: number) {
  return createClient({
    socket: {
      host: target.host,
      port: target.port,
      ...(target.tls ? { tls: true as const } : {}),
      connectTimeout: CONNECT_TIMEOUT_MS,
      reconnectStrategy: (retries: number) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 50),
    },
    ...(target.username === undefined ? {} : { username: target.username }),
    ...(target.password === undefined ? {} : { password: target.password }),
    database: target.database,
    // Without this, commands sent while disconnected wait in memory for the reconnection.
    disableOfflineQueue: true,
    commandOptions: { timeout: commandTimeoutMs },
  });
}
