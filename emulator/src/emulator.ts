import { systemTimers, type Timers } from '../../src/contract/timers.js';
import { createApp } from './app.js';
import { DEFAULT_EMULATOR_CONFIG, type EmulatorConfig, HOURLY_REQUEST_LIMITS, type Plan } from './config.js';
import { FAULT_DESCRIPTIONS, type Fault, type FaultKind, type FaultState, parseFault } from './endpoints/fault-table.js';
import { FaultSwitch } from './endpoints/faults.js';
import { RealtimeEndpoint } from './endpoints/realtime.js';
import { TrafficControl, type TrafficState } from './endpoints/traffic.js';
import { TrafficSimulator, type VisitBehaviour } from './traffic-simulator.js';
import { VisitorWindow } from './visitor-window.js';

/** Distinct visitors remembered per website before the least recently seen are forgotten. */
const DEFAULT_MAX_VISITORS_PER_WEBSITE = 100_000;

export interface EmulatorOptions {
  /** Websites, tokens and plans; `DEFAULT_EMULATOR_CONFIG` when absent. */
  readonly config?: EmulatorConfig;
  /** Milliseconds since the epoch; `Date.now` when absent. */
  readonly now?: () => number;
  /** Uniform in [0, 1), for the traffic simulator; `Math.random` when absent. */
  readonly random?: () => number;
  readonly timers?: Timers;
  /** Serve the `/__emulator/…` control API. Off unless asked for. */
  readonly controls?: boolean;
  /** Start the traffic simulator with this target of concurrent visitors on every website. */
  readonly simulate?: number;
  readonly maxVisitorsPerWebsite?: number;
  readonly visitBehaviour?: Partial<VisitBehaviour>;
  /** Told about unexpected errors, which are answered 500; `console.error` when absent. */
  readonly onError?: (error: unknown) => void;
}

/** One configured website as `GET /__emulator/state` shows it. */
export interface EmulatedWebsite {
  readonly id: string;
  readonly token: string;
  readonly plan: Plan;
  readonly hourlyRequestLimit: number;
  readonly currentVisitors: number;
}

/** What `GET /__emulator/state` answers. */
export interface EmulatorState {
  readonly websites: readonly EmulatedWebsite[];
  readonly fault: FaultState | null;
  readonly traffic: TrafficState;
  /** Every fault kind with what it does, for the demo's controls. */
  readonly faultKinds: Readonly<Record<FaultKind, string>>;
}

/** Memory held, to check it stays bounded. */
export interface EmulatorStats {
  /** Visitors in memory per website (current ones plus some not yet pruned). */
  readonly trackedVisitors: Readonly<Record<string, number>>;
  /** Request timestamps held by the plan-limit counters. */
  readonly trackedRateLimitRequests: number;
  /** Requests held by a `hang` or `slow` fault. */
  readonly waitingRequests: number;
  /** Simulated visitors in the middle of a visit. */
  readonly browsingSimulatedVisitors: number;
}

export interface Emulator {
  /** The Fetch API handler; it never throws and never rejects. */
  readonly handler: (request: Request) => Promise<Response>;
  readonly config: EmulatorConfig;
  readonly traffic: TrafficControl;
  /** Records a pageview as `POST /api/v1/pageviews` does; `atMs` defaults to now and may not be in the future. */
  recordPageview(websiteId: string, visitorId: string, atMs?: number): void;
  currentVisitors(websiteId: string): number;
  /** Validates like `POST /__emulator/fault`; throws `TypeError` on a bad fault. */
  setFault(fault: Fault): void;
  clearFault(): void;
  state(): EmulatorState;
  stats(): EmulatorStats;
  /** Forgets pageviews and plan-limit counts and clears the fault; the traffic settings stay. */
  reset(): void;
  /** Stops the simulator and releases every request a fault holds. */
  dispose(): void;
}

export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const config = options.config ?? DEFAULT_EMULATOR_CONFIG;
  const now = options.now ?? Date.now;
  const timers = options.timers ?? systemTimers;
  const maxVisitors = options.maxVisitorsPerWebsite ?? DEFAULT_MAX_VISITORS_PER_WEBSITE;

  const visitors = new Map(config.websites.map((website) => [website.id, new VisitorWindow({ maxVisitors })]));
  const realtime = new RealtimeEndpoint({ websites: config.websites, visitors, now });
  const faults = new FaultSwitch(now, timers);
  const shutdown = new AbortController();
  const traffic = new TrafficControl(
    new Map(
      [...visitors].map(([websiteId, window]) => [
        websiteId,
        new TrafficSimulator({
          website: {
            recordPageview: (visitorId, atMs) => window.record(visitorId, atMs, now()),
            currentVisitors: () => window.count(now()),
            forgetVisitor: (visitorId) => window.forget(visitorId),
          },
          now,
          random: options.random ?? Math.random,
          timers,
          visitorIdPrefix: `sim-${websiteId}-`,
          ...(options.visitBehaviour ? { behaviour: options.visitBehaviour } : {}),
        }),
      ]),
    ),
  );

  const windowOf = (websiteId: string): VisitorWindow => {
    const window = visitors.get(websiteId);
    if (!window) throw new RangeError(`Unknown website "${websiteId}"`);
    return window;
  };

  const emulator: Emulator = {
    handler: async (request) => app.fetch(request),
    config,
    traffic,
    recordPageview(websiteId, visitorId, atMs = now()) {
      const window = windowOf(websiteId);
      const nowMs = now();
      if (atMs > nowMs) throw new RangeError('A pageview cannot be in the future');
      window.record(visitorId, atMs, nowMs);
    },
    currentVisitors: (websiteId) => windowOf(websiteId).count(now()),
    setFault(fault) {
      const parsed = parseFault(fault);
      if ('error' in parsed) throw new TypeError(parsed.error);
      faults.set(parsed.fault);
    },
    clearFault: () => faults.clear(),
    state: () => ({
      websites: config.websites.map((website) => ({
        id: website.id,
        token: website.token,
        plan: website.plan,
        hourlyRequestLimit: HOURLY_REQUEST_LIMITS[website.plan],
        currentVisitors: windowOf(website.id).count(now()),
      })),
      fault: faults.state,
      traffic: traffic.state,
      faultKinds: FAULT_DESCRIPTIONS,
    }),
    stats: () => ({
      trackedVisitors: Object.fromEntries([...visitors].map(([websiteId, window]) => [websiteId, window.trackedVisitors])),
      trackedRateLimitRequests: realtime.trackedRequests,
      waitingRequests: faults.waitingRequests,
      browsingSimulatedVisitors: traffic.browsingVisitors,
    }),
    reset() {
      for (const window of visitors.values()) window.clear();
      realtime.forgetRequests();
      faults.clear();
    },
    dispose() {
      traffic.stop();
      // Abort first: held requests then answer "shutting down" rather than a normal answer.
      shutdown.abort();
      faults.clear();
    },
  };

  const app = createApp({
    emulator,
    realtime,
    faults,
    traffic,
    visitors,
    now,
    shutdown: shutdown.signal,
    controls: options.controls ?? false,
    onError: options.onError ?? ((error: unknown) => console.error('[emulator]', error)),
  });

  if (options.simulate !== undefined) {
    // The shop is already busy when the emulator starts: a first request shows the crowd, not a ramp from zero.
    traffic.setTarget(options.simulate, { immediate: true });
    traffic.start();
  }
  return emulator;
}
