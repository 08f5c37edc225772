import '../src/define.js';
import { clearFault, countRealtimeRequests, type FaultRequest, nudgeTraffic, setFault } from './emulator-controls.js';
import scriptTagPage from './script-tag.html?raw';
import { snippetParts } from './snippet-parts.js';

const widget = document.querySelector('live-visitors')!;
const form = document.querySelector<HTMLFormElement>('#settings')!;
const preview = document.querySelector<HTMLElement>('.layout')!;
const byId = (id: string) => document.getElementById(id)!;

const ATTRIBUTES = [
  'website-id',
  'token',
  'api-base',
  'interval',
  'min',
  'max-age',
  'text',
  'text-one',
  'text-two',
  'text-few',
  'text-many',
  'notation',
  'disclosure',
  'disclosure-text',
  'holdout',
  'lang',
] as const;
/** Shown in the snippet only when changed: the demo's own 15 s interval is not a shop's. */
const SNIPPET_DEFAULTS: Record<string, string> = { interval: '15', min: '1', 'max-age': '600' };
/**
 * The README's snippet, for a shop's copy of the script: the script-tag page has it word for word
 * (test/readme-snippet.test.ts checks), indented as the page's `<head>` is.
 */
const { script: pageScript, elementStyle: KEPT_LINES } = snippetParts(scriptTagPage);
const HEAD_SCRIPT = pageScript!.replace(/^ {4}/gm, '').replace("'/live-visitors.js'", "'https://your-cdn.example/live-visitors.js'");
const THEMES = ['default', 'subtle', 'badge', 'serif'];
const LANGUAGES = 'en ar bg cs da de el es et fi fr he hi hr hu id it ja ko lt lv nb nl pl pt ro ru sk sl sv th tr uk vi zh zh-TW'.split(
  ' ',
);
const holdout = document.querySelector<HTMLInputElement>('#holdout')!;

/** What a shopper sees in each scenario, in plain words. */
const SCENARIOS: Record<string, { note: string; fault?: FaultRequest; override?: Record<string, string>; offline?: boolean }> = {
  normal: { note: 'Shoppers see the live count of people on the shop, refreshed every interval.' },
  down: {
    fault: { kind: 'server-error' },
    note: 'The service answers 500. Shoppers keep seeing the last count until max-age (10 minutes by default), then the fallback line. The widget retries with growing pauses, so a sick service is not hammered.',
  },
  slow: {
    fault: { kind: 'slow', delaySeconds: 8 },
    note: 'Answers take 8 seconds. Shoppers keep seeing the last count meanwhile; nothing flickers or jumps.',
  },
  'rate-limited': {
    fault: { kind: 'rate-limited', retryAfterSeconds: 20 },
    note: 'The plan’s hourly limit is used up (429). The widget waits as long as the service asks (here 20 s; it remembers this across reloads) and keeps the last count meanwhile. A relay avoids this: one request a minute for all shoppers.',
  },
  'wrong-token': {
    override: { token: 'not-the-right-token' },
    note: 'The service refuses the token (401). Shoppers see the fallback line, never an error; the console says once which attribute to fix.',
  },
  'unknown-website': {
    override: { 'website-id': 'no-such-shop' },
    note: 'No such website (404). Shoppers see the fallback line; the console names the website-id attribute.',
  },
  offline: {
    fault: { kind: 'reset' },
    offline: true,
    note: 'The shopper’s connection dropped. No requests are sent; the last count stays until max-age. When the connection returns, the widget refreshes as soon as its count is due.',
  },
};

function settings(): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of ATTRIBUTES) {
    const field = form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null;
    values[name] = field?.value.trim() ?? '';
  }
  return values;
}

/** The form's values, and the experiment's share when it is on. */
function chosen(): Record<string, string> {
  return { ...settings(), holdout: holdout.checked ? '0.2' : '' };
}

function applySettings(overrides: Record<string, string> = {}): void {
  const values = { ...chosen(), ...overrides };
  for (const name of ATTRIBUTES) {
    if (values[name]) widget.setAttribute(name, values[name]);
    else widget.removeAttribute(name);
  }
  const theme = (form.elements.namedItem('theme') as HTMLSelectElement).value;
  preview.classList.remove(...THEMES.map((name) => `theme-${name}`));
  preview.classList.add(`theme-${theme}`);
  renderSnippet(chosen());
}

/** The demo relay: its address, and its own copy of the element as its page gives it (null until read, or when it has none). */
const RELAY_ADDRESS = new URL('./relay', location.href).href;
let relayScriptUrl: string | null = null;

/** Reads the script URL the relay's page hands out, so the relay snippet loads the element from the relay itself. */
async function readRelayScriptUrl(): Promise<void> {
  const relayPage = new URL('./relay/', location.href);
  try {
    const page = new DOMParser().parseFromString(await (await fetch(relayPage)).text(), 'text/html');
    const content = page.querySelector('meta[name="live-visitors-script"]')?.getAttribute('content');
    relayScriptUrl = content ? new URL(content, relayPage).href : null;
  } catch {
    relayScriptUrl = null;
  }
  byId('relay-script-url').textContent = relayScriptUrl ?? 'none: the relay has no copy of the element (run npm start again)';
  renderSnippet(chosen());
}

function renderSnippet(values: Record<string, string>): void {
  const attribute = (name: string) => ` ${name}="${values[name]!.replaceAll('&', '&amp;').replaceAll('"', '&quot;')}"`;
  const shown = ATTRIBUTES.filter((name) => values[name] && values[name] !== SNIPPET_DEFAULTS[name]);
  const script = `<!-- In your page's <head> -->\n${HEAD_SCRIPT}\n\n<!-- Where the offer is -->\n`;
  const direct = shown
    .filter((name) => name !== 'api-base')
    .map(attribute)
    .join('');
  const api = values['api-base'] ? attribute('api-base') : ' api-base="https://analytics.example.com"';
  byId('snippet').textContent = `${script}<live-visitors${direct}${api} style="${KEPT_LINES}"></live-visitors>`;
  const relayed = shown
    .filter((name) => name !== 'token' && name !== 'api-base')
    .map(attribute)
    .join('');
  const relayScript = script.replace(
    'https://your-cdn.example/live-visitors.js',
    relayScriptUrl ?? 'https://your-cdn.example/live-visitors.js',
  );
  byId('snippet-relay').textContent =
    `${relayScript}<live-visitors${relayed} api-base="${RELAY_ADDRESS}" style="${KEPT_LINES}"></live-visitors>`;
}

let offline = false;

async function chooseScenario(name: string): Promise<void> {
  const scenario = SCENARIOS[name]!;
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-scenario]')) {
    button.setAttribute('aria-pressed', String(button.dataset.scenario === name));
  }
  byId('scenario-note').textContent = scenario.note;
  await (scenario.fault ? setFault(scenario.fault) : clearFault());
  applySettings(scenario.override);
  // The browser's own offline/online events are what the widget listens to.
  if (scenario.offline !== offline) {
    offline = Boolean(scenario.offline);
    window.dispatchEvent(new Event(offline ? 'offline' : 'online'));
  }
  if (!offline) await widget.refresh();
}

function log(text: string): void {
  const item = document.createElement('li');
  item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  const list = byId('log');
  list.prepend(item);
  while (list.children.length > 30) list.lastElementChild!.remove();
}

function showStatus(): void {
  byId('state').textContent = widget.state;
  byId('count').textContent = widget.count === null ? '–' : String(widget.count);
}

form.addEventListener('input', () => applySettings());
form.addEventListener('submit', (event) => event.preventDefault());
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-scenario]')) {
  button.addEventListener('click', () => void chooseScenario(button.dataset.scenario!));
}
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-traffic]')) {
  button.addEventListener('click', async () => {
    const websiteId = settings()['website-id'] || 'demo-shop';
    try {
      const target = await nudgeTraffic(websiteId, Number(button.dataset.traffic));
      byId('traffic-note').textContent = `About ${target} simulated shoppers now; the widget shows it at its next poll.`;
    } catch {
      byId('traffic-note').textContent = `The emulator has no website "${websiteId}": its sites are demo-shop and small-shop.`;
    }
  });
}
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-copy]')) {
  button.addEventListener('click', async () => {
    await navigator.clipboard?.writeText(byId(button.dataset.copy!).textContent ?? '').catch(() => {});
    byId('copied').textContent = 'Copied.';
    setTimeout(() => (byId('copied').textContent = ''), 2000);
  });
}

widget.addEventListener('live-visitors-update', (event) => {
  log(`update: ${event.detail.count} visitors`);
  showStatus();
});
widget.addEventListener('live-visitors-error', (event) => {
  log(`error (${event.detail.kind}): ${event.detail.message}`);
  showStatus();
});
new MutationObserver(showStatus).observe(widget, { attributes: true, attributeFilter: ['state'] });
countRealtimeRequests((count) => (byId('requests').textContent = String(count)));

/** The language menu, each language named in itself. */
function fillLanguages(): void {
  const select = byId('language') as HTMLSelectElement;
  select.add(new Option('Page language (en)', ''));
  for (const tag of LANGUAGES) select.add(new Option(`${new Intl.DisplayNames(tag, { type: 'language' }).of(tag)} (${tag})`, tag));
}

/** The experiment panel: this browser's group once it is decided (the holdout's file loads first), and a log of what an analytics tool would receive. */
async function showVariant(): Promise<void> {
  byId('variant').textContent = await widget.decidedVariant;
}

function logImpression(text: string): void {
  const item = document.createElement('li');
  item.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  const list = byId('impressions');
  list.prepend(item);
  while (list.children.length > 8) list.lastElementChild!.remove();
}

holdout.addEventListener('change', () => {
  applySettings();
  void widget.updateComplete.then(showVariant);
});
byId('switch-group').addEventListener('click', () => {
  // The draw is this browser's number in [0, 1) for the website; below the holdout share means held out.
  const key = `live-visitors:holdout:${widget.getAttribute('website-id')}`;
  localStorage.setItem(key, widget.variant === 'holdout' ? '0.99' : '0.01');
  holdout.checked = true;
  sessionStorage.setItem('demo-holdout', 'on');
  location.reload();
});
widget.addEventListener('live-visitors-impression', (event) => {
  logImpression(`impression: ${event.detail.count} visitors, variant "${event.detail.variant}"`);
});
// Shows every push to Google Tag Manager's queue, as GTM would receive it.
const dataLayer = (window as unknown as { dataLayer: unknown[] }).dataLayer;
const push = dataLayer.push.bind(dataLayer);
dataLayer.push = (...items: unknown[]) => {
  for (const item of items) logImpression(`dataLayer.push(${JSON.stringify(item)})`);
  return push(...items);
};

fillLanguages();
holdout.checked = sessionStorage.getItem('demo-holdout') === 'on';
holdout.addEventListener('change', () => sessionStorage.setItem('demo-holdout', holdout.checked ? 'on' : 'off'));
applySettings();
void readRelayScriptUrl();
void widget.updateComplete.then(showVariant);
byId('scenario-note').textContent = SCENARIOS.normal!.note;
void clearFault().catch(() => {});
