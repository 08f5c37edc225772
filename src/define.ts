import type { LiveVisitorsErrorEvent, LiveVisitorsUpdateEvent } from './events.js';
import { LiveVisitors } from './live-visitors.js';

export const TAG_NAME = 'live-visitors';

// Two script tags (or a bundle plus a script tag) must not throw "already defined".
if (typeof customElements !== 'undefined' && !customElements.get(TAG_NAME)) {
  customElements.define(TAG_NAME, LiveVisitors);
}

declare global {
  interface HTMLElementTagNameMap {
    'live-visitors': LiveVisitors;
  }
  interface GlobalEventHandlersEventMap {
    'live-visitors-update': LiveVisitorsUpdateEvent;
    'live-visitors-error': LiveVisitorsErrorEvent;
  }
}

export { LiveVisitors };
