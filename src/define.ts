import type { LiveVisitorsErrorEvent, LiveVisitorsImpressionEvent, LiveVisitorsUpdateEvent } from './events.js';
import { LiveVisitors } from './live-visitors.js';

export const TAG_NAME = 'live-visitors';

// Two script tags (or a bundle plus a script tag) must not throw "already defined".
// The literal tag (not TAG_NAME) lets the Custom Elements Manifest analyzer see it.
if (typeof customElements !== 'undefined' && !customElements.get(TAG_NAME)) {
  customElements.define('live-visitors', LiveVisitors);
}

declare global {
  interface HTMLElementTagNameMap {
    'live-visitors': LiveVisitors;
  }
  interface GlobalEventHandlersEventMap {
    'live-visitors-update': LiveVisitorsUpdateEvent;
    'live-visitors-error': LiveVisitorsErrorEvent;
    'live-visitors-impression': LiveVisitorsImpressionEvent;
  }
}

export { LiveVisitors };
