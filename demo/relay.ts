import '../src/define.js';
import { countRealtimeRequests } from './emulator-controls.js';

countRealtimeRequests((count) => (document.getElementById('requests')!.textContent = String(count)));

// The same shop read through another analytics service (relay websites `demo-shop-<kind>`, see emulator-plugin.ts).
const widget = document.querySelector('live-visitors')!;
document.getElementById('source')!.addEventListener('change', (event) => {
  const kind = (event.target as HTMLSelectElement).value;
  const websiteId = kind ? `demo-shop-${kind}` : 'demo-shop';
  widget.setAttribute('website-id', websiteId);
  document.getElementById('relay-snippet')!.textContent = `<live-visitors website-id="${websiteId}" api-base="/relay"></live-visitors>`;
});
