import { type EmulatorConfig, startEmulatorServer } from '../../../emulator/src/index.js';
import { serveOnNode } from '../../../server-kit/serve.js';
import { type Answer, eventually, toAnswer } from '../../../test/support/network.js';
import type { RelayConfig, RelayConfigInput } from '../../src/config.js';
import { createRelay, type RelayOptions } from '../../src/relay.js';

type EmulatorServer = Awaited<ReturnType<typeof startEmulatorServer>>;

export { type Answer, eventually, toAnswer };

/** Tokens distinctive enough that finding one anywhere can only mean a leak. */
export const SHOP = { id: 'shop-a', token: 'tokA-SECRET-7f3a9c' } as const;
/** `+`, `/` and `=` so a URL-encoded leak looks different from the token itself. */
export const OTHER_SHOP = { id: 'shop-b', token: 'tokB+SECRET/4d2e==' } as const;
export const TOKENS = [SHOP.token, OTHER_SHOP.token];

export const EMULATOR_CONFIG: EmulatorConfig = {
  websites: [
    { id: SHOP.id, token: SHOP.token, plan: 'enterprise' },
    { id: OTHER_SHOP.id, token: OTHER_SHOP.token, plan: 'enterprise' },
    // Known to the service but not to the relay: the relay must not ask for it.
    { id: 'not-relayed', token: 'tokC-SECRET-0000', plan: 'enterprise' },
  ],
};

export const START_MS = Date.UTC(2025, 0, 15, 12, 0, 0, 0);

/** One clock for both ends, moved only by the test. */
export class ManualClock {
  #nowMs = START_MS;
  readonly now = (): number => this.#nowMs;
  advance(ms: number): void {
    this.#nowMs += ms;
  }
  advanceTo(ms: number): void {
    this.#nowMs = Math.max(this.#nowMs, ms);
  }
}

export interface UpstreamCall {
  readonly url: string;
  readonly atMs: number;
  readonly authorization: string | null;
}

export interface RelayHarness {
  readonly clock: ManualClock;
  readonly emulator: EmulatorServer;
  readonly relayUrl: string;
  /** Requests the relay sent upstream, counted by a wrapper around its (real) fetch. */
  readonly upstreamCalls: UpstreamCall[];
  /** Authenticated requests the emulator counted against plans: the count at the service's end. */
  servedByEmulator(): number;
  /** Requests that reached the relay's handler. */
  arrivals(): number;
  /** Every log line of the relay. */
  readonly logs: string[];
  /** Every answer the relay gave in this harness, for token scans. */
  readonly answers: Answer[];
  get(query: string, init?: RequestInit): Promise<Answer>;
  request(path: string, init?: RequestInit): Promise<Answer>;
  close(): Promise<void>;
}

export const defaultRelayConfig = (upstream: string, overrides: Partial<RelayConfig> = {}): RelayConfigInput => ({
  upstream,
  websites: [SHOP, OTHER_SHOP],
  allowOrigins: ['https://shop.example'],
  interval: 60,
  maxStale: 600,
  hourlyBudget: 1_000,
  // The emulator stands in for every source's service, on loopback: listed as an operator lists a shop's own Matomo.
  sourceBases: [new URL(upstream).origin],
  ...overrides,
});

export interface HarnessOptions {
  readonly config?: Partial<RelayConfig>;
  readonly relay?: Partial<Omit<RelayOptions, 'config'>>;
  /** Origins listed in `sourceBases` besides the emulator's: a test's own servers that stand for a service. */
  readonly moreSourceBases?: readonly string[];
}

/** The emulator and the relay, each on its own loopback port, sharing one manual clock. */
export async function startRelayHarness(options: HarnessOptions = {}): Promise<RelayHarness> {
  const clock = new ManualClock();
  const emulator = await startEmulatorServer({
    port: 0,
    controls: true,
    config: EMULATOR_CONFIG,
    now: clock.now,
    onError: () => undefined,
  });
  const upstreamCalls: UpstreamCall[] = [];
  const logs: string[] = [];
  const answers: Answer[] = [];
  let arrivals = 0;

  const relay = createRelay({
    config: defaultRelayConfig(emulator.url, {
      sourceBases: [new URL(emulator.url).origin, ...(options.moreSourceBases ?? [])],
      ...options.config,
    }),
    now: clock.now,
    random: () => 0,
    log: (line) => logs.push(line),
    fetch: (input, init) => {
      upstreamCalls.push({ url: input, atMs: clock.now(), authorization: new Headers(init.headers).get('authorization') });
      return fetch(input, init);
    },
    ...options.relay,
  });
  // No grace on close: a test that ends with requests still held by the emulator cuts them.
  const server = await serveOnNode(
    (request) => {
      arrivals += 1;
      return relay(request);
    },
    { port: 0, graceMs: 0 },
  );
  const relayUrl = server.url;

  const request = async (path: string, init?: RequestInit): Promise<Answer> => {
    const answer = await toAnswer(await fetch(`${relayUrl}${path}`, init));
    answers.push(answer);
    return answer;
  };
  return {
    clock,
    emulator,
    relayUrl,
    upstreamCalls,
    servedByEmulator: () => emulator.emulator.stats().trackedRateLimitRequests,
    arrivals: () => arrivals,
    logs,
    answers,
    request,
    get: (query, init) => request(`/api/v1/realtime${query}`, init),
    async close() {
      await Promise.all([server.close(), emulator.close()]);
    },
  };
}

/** Every place a token could hide in an answer: status line aside, all headers and the body. */
export function answerText(answer: Answer): string {
  const headers = [...answer.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
  return `${headers}\n\n${answer.text}`;
}

/** The tokens (plain or URL-encoded) found in `text`. */
export function leakedTokens(text: string, tokens: readonly string[] = TOKENS): string[] {
  return tokens.filter((token) => text.includes(token) || text.includes(encodeURIComponent(token)));
}
