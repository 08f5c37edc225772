import { TrafficSimulator } from './traffic-simulator.js';

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
