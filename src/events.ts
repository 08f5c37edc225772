import type { Variant } from './holdout.js';
import type { RealtimeErrorKind } from './realtime/errors.js';

/** Detail of `live-visitors-update`: a new good report. */
export interface LiveVisitorsUpdateDetail {
  count: number;
  websiteId: string;
  /** The service's ISO 8601 time of collection. */
  timestamp: string;
  /** The minutes the count covers: the contract's 3, unless the relay's source counts another window. */
  windowMinutes: number;
}

/** Detail of `live-visitors-error`. `config` means an attribute is missing or malformed. */
export interface LiveVisitorsErrorDetail {
  kind: RealtimeErrorKind | 'config';
  status: number | null;
  message: string;
}

/** Detail of `live-visitors-impression`: the element was seen with a count, or would have been (`holdout`). */
export interface LiveVisitorsImpressionDetail {
  count: number;
  websiteId: string;
  variant: Variant;
  /** The minutes the count covers (see `LiveVisitorsUpdateDetail`). */
  windowMinutes: number;
}

export type LiveVisitorsUpdateEvent = CustomEvent<LiveVisitorsUpdateDetail>;
export type LiveVisitorsErrorEvent = CustomEvent<LiveVisitorsErrorDetail>;
export type LiveVisitorsImpressionEvent = CustomEvent<LiveVisitorsImpressionDetail>;

/** Bubbling and composed, so a listener on the document hears every widget, shadow roots included. */
export function dispatch<T>(target: EventTarget, type: string, detail: T): void {
  target.dispatchEvent(new CustomEvent<T>(type, { detail, bubbles: true, composed: true }));
}
