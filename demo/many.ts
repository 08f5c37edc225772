import '../src/define.js';
import { countRealtimeRequests } from './emulator-controls.js';

const PRODUCTS = [
  'Nordic Roast',
  'Ethiopia Guji',
  'Colombia Huila',
  'Decaf Swiss Water',
  'Espresso Blend',
  'Kenya AA',
  'Brazil Cerrado',
  'Guatemala Antigua',
  'Sumatra Mandheling',
  'Costa Rica Tarrazú',
  'Peru Organic',
  'Rwanda Nyamasheke',
];

const grid = document.getElementById('grid')!;
for (const name of PRODUCTS) {
  const item = document.createElement('li');
  const title = document.createElement('h2');
  title.textContent = name;
  const widget = document.createElement('live-visitors');
  widget.setAttribute('website-id', 'demo-shop');
  widget.setAttribute('token', 'demo-token');
  widget.setAttribute('interval', '15');
  item.append(title, widget);
  grid.append(item);
}
document.getElementById('elements')!.textContent = String(PRODUCTS.length);
countRealtimeRequests((count) => (document.getElementById('requests')!.textContent = String(count)));
