import type { Context } from 'hono';
import { isPlainObject } from '../../../server-kit/config-checks.js';
import { MAX_SIMULATED_VISITORS, type TrafficSimulator } from '../traffic-simulator.js';
import { errorResponse } from './error-response.js';

export interface TrafficState {
  readonly running: boolean;
  /** Target of concurrent visitors per website id. */
  readonly targets: Readonly<Record<string, number>>;
}

export interface TargetOptions {
  /** Only this website; every website when absent. */
  readonly websiteId?: string;
  readonly immediate?: boolean;
}

/** One traffic simulator per website, started and stopped together. */
export class TrafficControl {
  readonly #simulators: ReadonlyMap<string, TrafficSimulator>;

  constructor(simulators: ReadonlyMap<string, TrafficSimulator>) {
    this.#simulators = simulators;
  }

  get isRunning(): boolean {
    return [...this.#simulators.values()].some((simulator) => simulator.isRunning);
  }

  get state(): TrafficState {
    const targets: Record<string, number> = {};
    for (const [websiteId, simulator] of this.#simulators) targets[websiteId] = simulator.target;
    return { running: this.isRunning, targets };
  }

  /** Simulated visitors in the middle of a visit, all websites together. */
  get browsingVisitors(): number {
    let total = 0;
    for (const simulator of this.#simulators.values()) total += simulator.browsingVisitors;
    return total;
  }

  start(): void {
    for (const simulator of this.#simulators.values()) simulator.start();
  }

  stop(): void {
    for (const simulator of this.#simulators.values()) simulator.stop();
  }

  /** Sets the target of one website or all; throws `RangeError` for an unknown website or a bad target. */
  setTarget(target: number, options: TargetOptions = {}): void {
    for (const simulator of this.#chosen(options.websiteId)) {
      simulator.setTarget(target, { immediate: options.immediate ?? false });
    }
  }

  #chosen(websiteId: string | undefined): TrafficSimulator[] {
    if (websiteId === undefined) return [...this.#simulators.values()];
    const simulator = this.#simulators.get(websiteId);
    if (!simulator) throw new RangeError(`Unknown website "${websiteId}"`);
    return [simulator];
  }
}

const TRAFFIC_OPTIONS = ['target', 'websiteId', 'immediate'];

/** `POST /__emulator/traffic`: sets the target of every website, or of one, and starts the simulators. */
export function setTraffic(c: Context, traffic: TrafficControl, body: unknown): Response {
  const refuse = (message: string) => errorResponse(c, 400, message);
  if (!isPlainObject(body)) return refuse('Body must be a JSON object like { "target": 40 }');
  const unknown = Object.keys(body).find((name) => !TRAFFIC_OPTIONS.includes(name));
  if (unknown !== undefined) return refuse(`${unknown} is not a traffic option (allowed: ${TRAFFIC_OPTIONS.join(', ')})`);
  const { target, websiteId, immediate } = body;
  if (typeof target !== 'number' || !Number.isInteger(target) || target < 0 || target > MAX_SIMULATED_VISITORS) {
    return refuse(`target must be a whole number from 0 to ${MAX_SIMULATED_VISITORS}`);
  }
  if (websiteId !== undefined && (typeof websiteId !== 'string' || !Object.hasOwn(traffic.state.targets, websiteId))) {
    return refuse('websiteId must be the id of a configured website');
  }
  if (immediate !== undefined && typeof immediate !== 'boolean') return refuse('immediate must be true or false');

  traffic.setTarget(target, { websiteId: websiteId as string | undefined, immediate: immediate === true });
  traffic.start();
  return c.json(traffic.state);
}
