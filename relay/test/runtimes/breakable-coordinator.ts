/**
 * A Worker for the store-failure test: the package's `RelayCoordinator`, made to throw on every
 * call once any request reaches this Worker's fetch handler. Bundled like the template (from the
 * source, so that type-checking the tests needs no build).
 */
import { RelayCoordinator, type SharedWebsiteState } from '../../src/cloudflare.js';

export class BreakableCoordinator extends RelayCoordinator {
  #broken = false;

  breakDown(): void {
    this.#broken = true;
  }

  #check(): void {
    if (this.#broken) throw new Error('the coordinator broke down on purpose');
  }

  override read(websiteId: string): Promise<SharedWebsiteState | null> {
    this.#check();
    return super.read(websiteId);
  }

  override write(websiteId: string, state: SharedWebsiteState, keepMs: number): Promise<void> {
    this.#check();
    return super.write(websiteId, state, keepMs);
  }

  override claim(websiteId: string, holder: string, ttlMs: number): Promise<boolean> {
    this.#check();
    return super.claim(websiteId, holder, ttlMs);
  }

  override release(websiteId: string, holder: string): Promise<void> {
    this.#check();
    return super.release(websiteId, holder);
  }

  override takeBudget(nowMs: number, limit: number) {
    this.#check();
    return super.takeBudget(nowMs, limit);
  }
}

interface Env {
  readonly COORDINATOR: {
    idFromName(name: string): unknown;
    get(id: unknown): { breakDown(): Promise<void> };
  };
}

export default {
  async fetch(_request: Request, env: Env): Promise<Response> {
    // The name DurableObjectStore uses by default: the coordinator every relay of the test talks to.
    await env.COORDINATOR.get(env.COORDINATOR.idFromName('live-visitors-relay')).breakDown();
    return new Response('broken');
  },
};
