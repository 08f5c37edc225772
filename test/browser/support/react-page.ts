// A React 19 app using <live-visitors>, built by Vite for the interop test (no JSX plugin needed).
// React 19 sets a custom element's prop as a property when the element has one (`name in element`)
// and as an attribute otherwise, and turns `on<event-name>` props into listeners for exactly
// `<event-name>`. The property rule needs the element defined before React renders: the page loads
// the script-tag bundle in a module script before this one, and module scripts run in order.
import { createElement as h, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { LiveVisitorsUpdateEvent } from '../../../src/index.js';

const params = new URLSearchParams(location.search);
const websiteId = params.get('websiteId')!;
const token = params.get('token')!;
const apiBase = params.get('apiBase')!;

function App() {
  const [heard, setHeard] = useState<number | null>(null);
  const [min, setMin] = useState(1000);
  return h(
    'main',
    null,
    h('h1', null, 'React 19 shop'),
    // Properties (camelCase) and the update event through React's own listener support.
    h(
      'p',
      { id: 'by-properties' },
      h('live-visitors', {
        websiteId,
        token,
        apiBase,
        'onlive-visitors-update': (event: LiveVisitorsUpdateEvent) => setHeard(event.detail.count),
      }),
    ),
    // Dash-case attributes (no such property: React sets attributes), `min` as a property from state.
    h(
      'p',
      { id: 'by-attributes' },
      h('live-visitors', { 'website-id': websiteId, token, 'api-base': apiBase, min }, h('span', { slot: 'fallback' }, 'Ships tomorrow.')),
    ),
    h('p', null, 'Heard: ', h('output', { id: 'heard' }, heard === null ? 'nothing' : String(heard))),
    h('button', { id: 'lower-min', type: 'button', onClick: () => setMin(1) }, 'Show any count'),
  );
}

createRoot(document.getElementById('root')!).render(h(App));
