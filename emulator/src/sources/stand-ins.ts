import { Hono } from 'hono';
import { mountFathom } from './fathom.js';
import { Ga4StandIn } from './ga4.js';
import { STAND_IN_KEYS } from './keys.js';
import { MatomoStandIn } from './matomo.js';
import { mountPlausible } from './plausible.js';
import { StandInState } from './stand-in-state.js';
import { UmamiStandIn } from './umami.js';

export interface SourceStandInOptions {
  /** The emulated websites' ids, in the config's order. */
  readonly siteIds: () => readonly string[];
  /** Current visitors of a website, or undefined for none by that id. */
  readonly countOf: (siteId: string) => number | undefined;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
}

/**
 * Local stand-ins for the analytics services a relay can read (Plausible, Umami, Matomo, GA4,
 * Fathom), each written from the service's published contract, answering the emulator's own
 * counts. None of the real services can be reached from here; see docs/relay.md "Sources" for
 * what was and was not run against them.
 */
export class SourceStandIns {
  readonly app = new Hono();
  readonly state: StandInState;
  readonly umami: UmamiStandIn;
  readonly matomo: MatomoStandIn;
  readonly ga4: Ga4StandIn;

  constructor(options: SourceStandInOptions) {
    this.state = new StandInState(options.siteIds, options.countOf, options.now);
    this.umami = new UmamiStandIn(this.state);
    this.matomo = new MatomoStandIn(this.state);
    this.ga4 = new Ga4StandIn(this.state);
    mountPlausible(this.app, this.state);
    this.umami.mount(this.app);
    this.matomo.mount(this.app);
    this.ga4.mount(this.app);
    mountFathom(this.app, this.state);
  }
}

/** What a shop on each service would paste as its website's `source`, for these stand-ins at `origin`: the demo's source picker reads it. */
export async function standInSources(
  standIns: SourceStandIns,
  origin: string,
  siteId: string,
): Promise<Record<string, object> | undefined> {
  const position = standIns.state.siteIds().indexOf(siteId) + 1;
  if (position === 0) return undefined;
  return {
    plausible: { kind: 'plausible', base: `${origin}/sources/plausible`, siteId, apiKey: STAND_IN_KEYS.plausible },
    umami: { kind: 'umami', base: `${origin}/sources/umami/api`, websiteId: siteId, apiKey: STAND_IN_KEYS.umami },
    matomo: { kind: 'matomo', base: `${origin}/sources/matomo`, siteId: String(position), tokenAuth: STAND_IN_KEYS.matomo },
    ga4: { kind: 'ga4', base: origin, propertyId: String(position), credentials: await standIns.ga4.serviceAccountKey(origin) },
    fathom: { kind: 'fathom', base: `${origin}/sources/fathom`, siteId, apiKey: STAND_IN_KEYS.fathom },
  };
}
