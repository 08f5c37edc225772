import { SOURCE_FORM_SCRIPT } from '../registry/source-form.js';
import { SESSION_TOKEN_SPENT } from './settings-api.js';

/**
 * The admin page's one script, served as `/shopify/app/admin.js` (the page's policy runs no inline
 * script). Plain browser JavaScript in a string: the relay's runtimes have no files to serve and
 * the relay's TypeScript has no DOM; the Chromium test runs it. Every call to the settings API
 * asks App Bridge's documented `shopify.idToken()` for its session token. A save spends its token
 * (the relay refuses a replayed one); Shopify asks for a token on each request but does not promise a
 * new one each call, so a save refused as spent asks once more and tries again.
 */
export const ADMIN_PAGE_SCRIPT = `${SOURCE_FORM_SCRIPT}
const main = document.querySelector('main');
const form = main.querySelector('form');
const status = document.getElementById('status');
const savedToken = document.getElementById('token-saved');
const next = document.getElementById('next');

const say = (text, state = 'ok') => {
  status.textContent = text;
  status.dataset.state = state;
};

async function settings(method, body, retried = false) {
  if (typeof shopify === 'undefined') throw new Error('Open this page from the app in your Shopify admin: App Bridge did not load here.');
  const token = await shopify.idToken();
  const headers = { Authorization: 'Bearer ' + token };
  if (body) headers['Content-Type'] = 'application/json';
  const response = await fetch(main.dataset.settings, { method, headers, body: body && JSON.stringify(body) });
  const answer = await response.json().catch(() => ({}));
  if (response.status === 401 && answer.code === '${SESSION_TOKEN_SPENT}' && !retried) return settings(method, body, true);
  if (!response.ok) throw new Error(answer.error || 'The relay answered ' + response.status + '.');
  return answer;
}

function describe(live) {
  if (!live) return '';
  if (live.error) return 'No count to show yet: ' + live.error;
  const when = new Date(live.timestamp).toLocaleTimeString(document.documentElement.lang, { hour: '2-digit', minute: '2-digit' });
  const count = new Intl.NumberFormat(document.documentElement.lang).format(live.count);
  return 'Live now: ' + count + (live.count === 1 ? ' person' : ' people') + ' on your shop in the last ' + live.windowMinutes + ' minutes (counted at ' + when + ').';
}

// With a source, its own key proves the site is the shop's: the realtime API's token field goes,
// and the website ID is the one the source's kind and site make, which the relay answers with.
const onKind = (kind) => {
  document.getElementById('token-field').hidden = kind !== '';
  form.token.disabled = kind !== '';
  form.websiteId.disabled = kind !== '';
};
showSourceFields(onKind);
document.getElementById('source-kind').addEventListener('change', () => showSourceFields(onKind));

function show(saved) {
  if (saved.websiteId === null) return say('Not set up yet: enter the website ID and the API token, then Save.');
  form.websiteId.value = saved.websiteId;
  if (saved.source) {
    // The saved source's kind and public fields; its key stays on the relay.
    document.getElementById('source-kind').value = saved.source.kind;
    showSourceFields(onKind);
    for (const [field, value] of Object.entries(saved.source)) {
      const control = document.getElementById('source-' + saved.source.kind + '-' + field);
      if (control && !control.hasAttribute('data-secret')) control.value = value;
    }
  }
  savedToken.hidden = false;
  savedToken.querySelector('strong').textContent = saved.tokenEnding;
  next.hidden = false;
  say(describe(saved.live));
}

settings('GET').then(show, (error) => say(error.message, 'error'));

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  const button = form.querySelector('button');
  button.disabled = true;
  say('Checking the website ID and token with the service…');
  try {
    const source = readSource();
    const saved = await settings(
      'PUT',
      source === null ? { websiteId: form.websiteId.value, token: form.token.value } : { source },
    );
    // Write-only: once saved, the token and a source's secrets leave the page; only an API key's last four characters come back.
    form.token.value = '';
    forgetSecrets();
    show(saved);
    say('Saved. ' + describe(saved.live));
  } catch (error) {
    say(error.message, 'error');
  } finally {
    button.disabled = false;
  }
});
`;
