import * as FakeTimers from '@sinonjs/fake-timers';
import { printTable, ratio } from './table.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Scenario {
  name: string;
  elements: number;
  /** Page loads in the hour and the time between them; the last page stays open to the end of the hour. */
  loads: number;
  every: number;
}

const SCENARIOS: Scenario[] = [
  { name: '1 element, one page open for an hour', elements: 1, loads: 1, every: HOUR },
  { name: '5 elements, one page open for an hour', elements: 5, loads: 1, every: HOUR },
  { name: '20 elements, one page open for an hour', elements: 20, loads: 1, every: HOUR },
  { name: '10 page loads 30 s apart (last stays open), 1 element each', elements: 1, loads: 10, every: 30_000 },
  { name: '10 page loads 30 s apart (last stays open), 5 elements each', elements: 5, loads: 10, every: 30_000 },
  { name: '10 page loads 6 min apart (last stays open), 5 elements each', elements: 5, loads: 10, every: 6 * MINUTE },
];

let requests = 0;
let websiteCounter = 0;

async function countRequests(tag: string, scenario: Scenario, clock: ReturnType<typeof FakeTimers.install>): Promise<number> {
  requests = 0;
  localStorage.clear();
  websiteCounter += 1;
  const websiteId = `bench-${websiteCounter}`;
  const started = clock.now;
  for (let load = 0; load < scenario.loads; load += 1) {
    const page = document.createElement('main');
    for (let index = 0; index < scenario.elements; index += 1) {
      const element = document.createElement(tag);
      element.setAttribute('website-id', websiteId);
      element.setAttribute('token', 'bench-token');
      element.setAttribute('api-base', 'https://analytics.example');
      page.append(element);
    }
    document.body.append(page);
    const last = load === scenario.loads - 1;
    await clock.tickAsync(last ? started + HOUR - clock.now - 1 : scenario.every);
    // Leaving the page: every element disconnects, as on navigation.
    page.remove();
    await clock.tickAsync(1);
  }
  return requests;
}

export async function benchRequests(): Promise<void> {
  // happy-dom replaces Node's globals (fetch among them) while this runs: keep Node's to restore.
  const realFetch = globalThis.fetch;
  const realWarn = console.warn;
  const { GlobalRegistrator } = await import('@happy-dom/global-registrator');
  GlobalRegistrator.register({ url: 'https://shop.example/product' });
  const clock = FakeTimers.install({
    now: Date.UTC(2026, 10, 22, 9),
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'],
  });
  globalThis.fetch = async (input: string | URL | Request) => {
    requests += 1;
    const websiteId = new URL(String(input)).searchParams.get('websiteId');
    return Response.json({ currentVisitors: 23, websiteId, timestamp: new Date().toISOString() });
  };
  console.warn = () => {};
  await import('../src/define.js');
  const { NaiveVisitors } = await import('./naive-element.js');
  customElements.define('naive-visitors', NaiveVisitors);

  const rows = [];
  for (const scenario of SCENARIOS) {
    const naive = await countRequests('naive-visitors', scenario, clock);
    const ours = await countRequests('live-visitors', scenario, clock);
    rows.push({
      scenario: scenario.name,
      'naive (setInterval per element)': naive,
      'live-visitors': ours,
      'ours vs naive': ratio(ours, naive),
    });
  }
  clock.uninstall();
  await GlobalRegistrator.unregister();
  globalThis.fetch = realFetch;
  console.warn = realWarn;
  printTable('Requests sent by one browser in one simulated hour (interval 60 s)', rows);
}
