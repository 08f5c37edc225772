import type { Context } from 'hono';

/** The services the emulator stands in for, as the relay names their kinds. */
export type StandInKind = 'plausible' | 'umami' | 'matomo' | 'ga4' | 'fathom';

/** An answer a test or the demo imposes on a stand-in's data endpoint, in place of the real one: a hostile service. */
export interface ImposedAnswer {
  readonly status: number;
  /** `{{header:authorization}}` stands for that request header's value. */
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Held this long before answering (a slow or hung service). */
  readonly delayMs?: number;
}

/** What every stand-in shares: the counts, the clock, the keys, and what tests count and impose. */
export class StandInState {
  /** Data requests each stand-in answered (the login and token endpoints apart). */
  readonly requests: Record<StandInKind, number> = { plausible: 0, umami: 0, matomo: 0, ga4: 0, fathom: 0 };
  /** `POST /auth/login` of the Umami stand-in. */
  logins = 0;
  /** Access tokens the GA4 stand-in's token endpoint issued or refused. */
  tokenRequests = 0;
  /** Requests refused for passing the service's documented rate limit. */
  readonly refused: Record<StandInKind, number> = { plausible: 0, umami: 0, matomo: 0, ga4: 0, fathom: 0 };
  readonly #imposed = new Map<StandInKind, ImposedAnswer>();
  readonly #recent = new Map<StandInKind, number[]>();

  constructor(
    /** The emulated websites' ids, in the config's order (Matomo's and GA4's numeric ids are positions in it, from 1). */
    readonly siteIds: () => readonly string[],
    /** Current visitors of a website, or undefined for none by that id. */
    readonly countOf: (siteId: string) => number | undefined,
    readonly now: () => number,
  ) {}

  /** The website at a 1-based position, for services whose ids are numbers. */
  siteAt(numericId: string): string | undefined {
    return /^[1-9]\d{0,5}$/.test(numericId) ? this.siteIds()[Number(numericId) - 1] : undefined;
  }

  /**
   * Whether one more request fits the service's documented limit (`limit` per `windowMs`); counts
   * it when it does. Else the seconds until one fits, as the service's `Retry-After` would say.
   */
  takeRate(kind: StandInKind, limit: number, windowMs: number): true | number {
    const nowMs = this.now();
    const recent = (this.#recent.get(kind) ?? []).filter((atMs) => atMs > nowMs - windowMs);
    this.#recent.set(kind, recent);
    if (recent.length >= limit) {
      this.refused[kind] += 1;
      return Math.max(1, Math.ceil((recent[0]! + windowMs - nowMs) / 1000));
    }
    recent.push(nowMs);
    return true;
  }

  impose(kind: StandInKind, answer: ImposedAnswer | null): void {
    if (answer === null) this.#imposed.delete(kind);
    else this.#imposed.set(kind, answer);
  }

  /** Counts a data request, and answers it as imposed if something is. */
  async imposed(kind: StandInKind, c: Context): Promise<Response | undefined> {
    this.requests[kind] += 1;
    const answer = this.#imposed.get(kind);
    if (!answer) return undefined;
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    // `{{header:name}}` echoes what the request sent: a service that quotes the credential back in its error.
    const body = answer.body.replace(/\{\{header:([\w-]+)\}\}/g, (_, name: string) => c.req.header(name) ?? '');
    return c.body(body, answer.status as 200, { 'Content-Type': 'application/json', ...answer.headers });
  }
}

/** The `Bearer` credential of a request, or undefined. */
export function bearerOf(c: Context): string | undefined {
  return /^Bearer ([\x21-\x7e]+)$/.exec(c.req.header('authorization') ?? '')?.[1];
}
