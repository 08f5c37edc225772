import { SOURCE_DEFINITIONS } from '../sources/kinds.js';
import { SITE_FIELD } from '../sources/source-website-id.js';
import { SNIPPET_SCRIPT } from './owner-snippet.js';
import { SOURCE_FORM_SCRIPT, SOURCE_WORDS } from './source-form.js';

/**
 * The owner page's script (`owner.js`): registers, shows the website's state, removes it, and says
 * every problem in the owner's words, naming the field by its label and what to do; the form keeps
 * what was typed, but for the secrets, which are emptied once saved and never shown again.
 * Written as the browser runs it (String.raw: its backslashes are the regular expressions' own).
 */
const PUBLIC_BASES = Object.fromEntries(Object.entries(SOURCE_DEFINITIONS).map(([kind, definition]) => [kind, definition.defaultBase]));

export const OWNER_PAGE_SCRIPT = String.raw`// The owner page's script: see relay/src/registry/owner-page-script.ts.
const $ = (id) => document.getElementById(id);
// The relay's address: its origin, with the path prefix it is mounted under when there is one.
const base = new URL('.', import.meta.url).href.replace(/\/$/, '');
const scriptAddress = document.querySelector('meta[name="live-visitors-script"]').content;
// The relay's own copy (a path from its root) or the operator's CDN; null when there is neither.
const SCRIPT_URL = scriptAddress === '' ? null : new URL(scriptAddress, base + '/').href;
const WORDS = ${JSON.stringify(SOURCE_WORDS)};
// The element's default min: below it a page shows no sentence.
const MIN_VISITORS = 1;
${SOURCE_FORM_SCRIPT}
${SNIPPET_SCRIPT}

// ---- The registration API, in one place -------------------------------------------------------
// A source registers with POST /api/v1/websites and the answer names the ID the relay made of it.
// Showing and removing it need that ID: sourceWebsiteId makes it the relay's way (sources/source-website-id.ts).
const SITE_FIELDS = ${JSON.stringify(SITE_FIELD)};
const PUBLIC_BASES = ${JSON.stringify(PUBLIC_BASES)};
function sourceWebsiteId(source) {
  const site = encodeURIComponent(String(source[SITE_FIELDS[source.kind]] ?? ''));
  let url;
  try {
    url = new URL(String(source.base || PUBLIC_BASES[source.kind]));
  } catch {
    return source.kind + ':' + site;
  }
  // The base as the relay keeps it: its origin and path, without trailing slashes.
  const path = url.pathname.replace(/\/+$/, '');
  if (url.origin + path === PUBLIC_BASES[source.kind]) return source.kind + ':' + site;
  const port = url.protocol === 'http:' && url.port === '' ? ':80' : '';
  return source.kind + ':' + url.host + port + path + '/' + site;
}
function websiteIdOf(form) {
  return form.source === null ? form.websiteId : sourceWebsiteId(form.source);
}
function registrationRequest(form) {
  return {
    url: base + '/api/v1/websites' + (form.source === null ? '/' + encodeURIComponent(form.websiteId) : ''),
    init: {
      method: form.source === null ? 'PUT' : 'POST',
      headers: proofHeaders(form),
      body: JSON.stringify({ ...(form.origins.length > 0 ? { allowOrigins: form.origins } : {}), ...(form.source === null ? {} : { source: form.source }) }),
      cache: 'no-store',
      credentials: 'omit',
    },
  };
}
function removalRequest(form) {
  return {
    url: base + '/api/v1/websites/' + encodeURIComponent(websiteIdOf(form)),
    init: {
      method: 'DELETE',
      headers: proofHeaders(form),
      body: form.source === null ? undefined : JSON.stringify({ source: form.source }),
      cache: 'no-store',
      credentials: 'omit',
    },
  };
}
function proofHeaders(form) {
  const json = { 'Content-Type': 'application/json' };
  return form.source === null ? { ...json, Authorization: 'Bearer ' + form.token } : json;
}
// ------------------------------------------------------------------------------------------------

const labelOf = (control) => control.labels[0].firstChild.textContent.trim();
const shownControls = () => [...$('register').querySelectorAll('input, textarea')].filter((control) => !control.disabled);

// With a source, its own key proves the website is yours, and its site names it: the realtime API's fields go.
function onKind(kind) {
  const words = WORDS[kind];
  for (const id of ['token', 'website-id']) {
    $(id + '-field').hidden = kind !== '';
    $(id).disabled = kind !== '';
  }
  $('intro-proof').textContent = words ? 'Your ' + words.proof + ' proves the site is yours' : 'Your API token proves the website is yours';
  clearProblem();
}
showSourceFields(onKind);
$('source-kind').addEventListener('change', () => showSourceFields(onKind));

function say(text, problem = null) {
  $('status').textContent = text;
  $('status').classList.toggle('problem', problem !== null);
}
function clearProblem() {
  for (const control of document.querySelectorAll('[aria-invalid]')) control.removeAttribute('aria-invalid');
  say('');
}
/** A problem with one field: marked, focused, named by its label. Nothing typed is cleared. */
function fieldProblem(control, text) {
  control.setAttribute('aria-invalid', 'true');
  control.focus();
  say(text, control);
}

/** The form as typed, checked; or a problem already said. */
function readForm(purpose = 'register') {
  clearProblem();
  let source;
  try {
    source = readSource();
  } catch (error) {
    const json = document.querySelector('fieldset:not([hidden]) [data-json]');
    fieldProblem(json, error.message);
    return null;
  }
  for (const control of shownControls()) {
    // Only the site is needed to look at a website's state; its proof, to register or remove it.
    const isProof = control.id === 'token' || control.hasAttribute('data-secret');
    if (control.required && control.value.trim() === '' && !(purpose === 'look' && isProof)) {
      const hint = control.id === 'token' ? ' Copy it from your analytics service\'s settings.' : control.id === 'website-id' ? ' It is the name your realtime visitors API knows your website by.' : '';
      fieldProblem(control, 'Enter "' + labelOf(control) + '".' + hint);
      return null;
    }
    if (control.dataset.field === 'base' && control.value.trim() !== '' && !/^https?:\/\/[^\s/]+/i.test(control.value.trim())) {
      fieldProblem(control, '"' + labelOf(control) + '": enter the whole address, starting with https://, like https://plausible.shop.example.');
      return null;
    }
  }
  // Umami takes either proof: a Cloud API key, or a self-hosted user and its password.
  if (source?.kind === 'umami' && purpose !== 'look' && !source.apiKey && !(source.username && source.password)) {
    const key = $('source-umami-apiKey');
    fieldProblem(key, 'Enter "' + labelOf(key) + '", or "' + labelOf($('source-umami-username')) + '" and "' + labelOf($('source-umami-password')) + '".');
    return null;
  }
  const origins = $('origins').value.split(/\s+/).filter((origin) => origin !== '');
  const wrong = purpose !== 'register' ? undefined : origins.find((origin) => !isOrigin(origin));
  if (wrong !== undefined) {
    fieldProblem($('origins'), '"Your shop\'s addresses": ' + wrong + ' is not an address like https://shop.example (https://, the host, no path and no slash at the end). Correct it, or empty the field to let any site show the count.');
    return null;
  }
  return { source, websiteId: $('website-id').value.trim(), token: $('token').value.trim(), origins };
}
function isOrigin(text) {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === text;
  } catch {
    return false;
  }
}

/** The relay's refusal in the owner's words: the field named by its label (and marked), and when to try again. */
function sayRefusal(response, answer) {
  const words = WORDS[sourceKind()];
  let text = typeof answer.error === 'string' ? answer.error : 'The relay answered ' + response.status + '.';
  text = text
    .replace(/\bsource\.(\w+)/g, (_, field) => '"' + (words?.labels[field] ?? field) + '"')
    .replace(/\ballowOrigins\b/g, '"Your shop\'s addresses"');
  const wait = Number(response.headers.get('retry-after'));
  if (response.status === 429 && wait > 0) {
    text = 'Too many attempts from your connection for now: nothing was changed. Try again ' + whenAgain(wait) + '.';
  } else if (wait > 0) {
    text = text.replace(/;? ?try again later\.?$/i, '') + '. Try again ' + whenAgain(wait) + '.';
  } else if (!/[.!]$/.test(text)) text += '.';
  const named = shownControls().find((control) => text.includes('"' + labelOf(control) + '"'));
  if (named) fieldProblem(named, text);
  else say(text, true);
}
/** Seconds from now, as a person says them: "in 40 seconds", "in about 55 minutes (at 6:12 AM)". */
function whenAgain(seconds) {
  const at = new Date(Date.now() + seconds * 1000).toLocaleTimeString('en', { hour: 'numeric', minute: '2-digit' });
  if (seconds < 90) return 'in ' + Math.ceil(seconds) + ' seconds';
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return 'in about ' + minutes + ' minutes (at ' + at + ')';
  return 'in about ' + Math.round(minutes / 60) + ' hours (at ' + at + ')';
}

async function send(request) {
  try {
    return await fetch(request.url, request.init);
  } catch {
    say('The relay could not be reached: check your connection and try again. Nothing was changed.', true);
    return null;
  }
}

$('register').addEventListener('submit', async (event) => {
  event.preventDefault();
  const form = readForm();
  if (form === null) return;
  say(form.source === null ? 'Checking the token with the analytics service…' : 'Checking the key with ' + WORDS[form.source.kind].name + '…');
  $('result').hidden = true;
  const response = await send(registrationRequest(form));
  if (response === null) return;
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) return sayRefusal(response, answer);
  // Saved: the token and the source's secrets leave the page.
  $('token').value = '';
  forgetSecrets();
  say(response.status === 201 ? 'Registered.' : 'Registration updated.');
  show(typeof answer.websiteId === 'string' ? answer.websiteId : websiteIdOf(form));
});

$('look').addEventListener('click', () => {
  const form = readForm('look');
  if (form === null) return;
  say('');
  show(websiteIdOf(form));
});

$('remove').addEventListener('click', async () => {
  const form = readForm('remove');
  if (form === null) return;
  say('Removing…');
  const response = await send(removalRequest(form));
  if (response === null) return;
  if (!response.ok) return sayRefusal(response, await response.json().catch(() => ({})));
  $('token').value = '';
  forgetSecrets();
  $('result').hidden = true;
  say('Removed: "' + websiteIdOf(form) + '" is no longer on this relay, and its secret is deleted. Pages that still show the element show nothing.');
});

function show(websiteId) {
  $('shown-website-id').textContent = websiteId;
  $('no-script').hidden = SCRIPT_URL !== null;
  $('paste').hidden = SCRIPT_URL === null;
  if (SCRIPT_URL !== null) {
    const filled = fillSnippet({ scriptUrl: SCRIPT_URL, websiteId, apiBase: base });
    $('snippet-head').textContent = filled.head;
    $('snippet-element').textContent = filled.element;
  }
  $('tag-website-id').textContent = websiteId;
  $('tag-api-base').textContent = base;
  $('tag-script-url').textContent = SCRIPT_URL === null ? '(none on this relay)' : SCRIPT_URL.replace(/live-visitors\.js$/, 'live-visitors-loader.js');
  $('result').hidden = false;
  state(websiteId);
}

/** The website's last answer and when it was collected, or its last failure in words. */
async function state(websiteId) {
  const shown = $('count');
  const note = $('count-note');
  shown.textContent = '…';
  $('count-when').textContent = '';
  note.hidden = true;
  let response;
  let answer;
  try {
    response = await fetch(base + '/api/v1/realtime?websiteId=' + encodeURIComponent(websiteId), { cache: 'no-store', credentials: 'omit' });
    answer = await response.json();
  } catch {
    shown.textContent = 'not available: the relay could not be reached';
    return;
  }
  if (!response.ok) {
    shown.textContent = response.status === 404
      ? 'none: "' + websiteId + '" is not registered on this relay'
      : 'not available: ' + (typeof answer.error === 'string' ? answer.error : 'the relay answered ' + response.status);
    $('count-when').textContent = '(asked at ' + new Date().toLocaleTimeString('en') + ')';
    return;
  }
  const visitors = answer.currentVisitors;
  shown.textContent = visitors + (visitors === 1 ? ' visitor' : ' visitors') + ' on your website' +
    (answer.windowMinutes ? ' in the last ' + answer.windowMinutes + ' minutes' : '');
  const collected = Date.parse(answer.timestamp);
  if (Number.isFinite(collected)) $('count-when').textContent = '(collected at ' + new Date(collected).toLocaleTimeString('en') + ')';
  if (visitors < MIN_VISITORS) {
    note.textContent = 'Your pages show the sentence once at least ' + MIN_VISITORS + ' visitor is on the site (the element\'s min attribute); until then the space it keeps stays empty.';
    note.hidden = false;
  }
}
`;
