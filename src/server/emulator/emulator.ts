import { DEFAULT_EMULATOR_CONFIG, HOURLY_REQUEST_LIMITS, type EmulatorConfig, type Plan } from './config.js';
import { controlRoutes } from './control-endpoints.js';
import { FaultSwitch, type FaultState } from './fault-switch.js';
import { FAULT_DESCRIPTIONS, parseFault, type Fault, type FaultKind } from './faults.js';
import { DEFAULT_MAX_VISITORS_PER_WEBSITE } from './input-limits.js';
import { PageviewEndpoint } from './pageview-endpoint.js';
import { PageviewStore } from './pageview-store.js';
import { SlidingWindowRateLimiter } from './rate-limiter.js';
import { RealtimeEndpoint } from './realtime-endpoint.js';
import { errorAnswer } from './responses.js';
import { dispatch, type Route } from './router.js';
import { systemTimers, type Timers } from './timers.js';
import { TrafficControl, type TrafficState } from './traffic-control.js';
import { TrafficSimulator, type VisitBehaviour } from './traffic-simulator.js';
import { WebsiteDirectory } from './website-directory.js';

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

export interface WebsiteState {
  readonly id: string;
  readonly token: string;
  readonly plan: Plan;
  readonly hourlyRequestLimit: number;
  readonly currentVisitors: number;
}

/** What `GET /__emulator/state` answers. */
export interface EmulatorState {
  readonly websites: readonly WebsiteState[];
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
  const random = options.random ?? Math.random;
  const timers = options.timers ?? systemTimers;
  const onError = options.onError ?? ((error: unknown) => console.error('[emulator]', error));

  const directory = new WebsiteDirectory(config);
  const store = new PageviewStore(config.websites, options.maxVisitorsPerWebsite ?? DEFAULT_MAX_VISITORS_PER_WEBSITE);
  const limiter = new SlidingWindowRateLimiter();
  const faults = new FaultSwitch(now, timers);
  const shutdown = new AbortController();
  const traffic = new TrafficControl(
    new Map(
      config.websites.map((website) => [
        website.id,
        new TrafficSimulator({
          website: {
            recordPageview: (visitorId, atMs) => store.record(website.id, visitorId, atMs, now()),
            currentVisitors: () => store.currentVisitors(website.id, now()),
            forgetVisitor: (visitorId) => store.forget(website.id, visitorId),
          },
          now,
          random,
          timers,
          visitorIdPrefix: `sim-${website.id}-`,
          ...(options.visitBehaviour ? { behaviour: options.visitBehaviour } : {}),
        }),
      ]),
    ),
  );

  const realtime = new RealtimeEndpoint({ directory, store, limiter, faults, now, shutdown: shutdown.signal });
  const pageviews = new PageviewEndpoint({ directory, store, now });

  const websiteOrThrow = (websiteId: string) => {
    const website = directory.findById(websiteId);
    if (!website) throw new RangeError(`Unknown website "${websiteId}"`);
    return website;
  };

  const emulator: Emulator = {
    handler: async (request) => {
      try {
        return await dispatch(routes, request);
      } catch (error) {
        onError(error);
        return errorAnswer(500, 'Internal server error');
      }
    },
    config,
    traffic,
    recordPageview(websiteId, visitorId, atMs = now()) {
      websiteOrThrow(websiteId);
      const nowMs = now();
      if (atMs > nowMs) throw new RangeError('A pageview cannot be in the future');
      store.record(websiteId, visitorId, atMs, nowMs);
    },
    currentVisitors: (websiteId) => store.currentVisitors(websiteOrThrow(websiteId).id, now()),
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
        currentVisitors: store.currentVisitors(website.id, now()),
      })),
      fault: faults.state,
      traffic: traffic.state,
      faultKinds: FAULT_DESCRIPTIONS,
    }),
    stats: () => ({
      trackedVisitors: Object.fromEntries(config.websites.map((website) => [website.id, store.trackedVisitors(website.id)])),
      trackedRateLimitRequests: limiter.trackedRequests,
      waitingRequests: faults.waitingRequests,
      browsingSimulatedVisitors: traffic.browsingVisitors,
    }),
    reset() {
      store.clear();
      limiter.clear();
      faults.clear();
    },
    dispose() {
      traffic.stop();
      // Abort first: held requests then answer "shutting down" rather than a normal answer.
      shutdown.abort();
      faults.clear();
    },
  };

  const routes = new Map<string, Route>([
    ['/api/v1/realtime', { visibility: 'public', methods: { GET: (request, url) => realtime.handle(request, url) } }],
    ['/api/v1/pageviews', { visibility: 'public', methods: { POST: (request) => pageviews.handle(request) } }],
    ...(options.controls ? controlRoutes(emulator) : []),
  ]);

  if (options.simulate !== undefined) {
    // The shop is already busy when the emulator starts: a first request shows the crowd, not a ramp from zero.
    traffic.setTarget(options.simulate, { immediate: true });
    traffic.start();
  }
  return emulator;
}
