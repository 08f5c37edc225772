import { FastResponse } from 'srvx';
import { SOURCE_FORM_SCRIPT, sourceFieldsHtml } from './source-form.js';

/**
 * The relay's page for owners, at `/`: website ID, token and the shop's origins, Register; then the
 * live count and exactly what to paste. No framework: one HTML file, one script, one stylesheet,
 * served from the relay's origin under a Content Security Policy that allows nothing else (no
 * inline script or style, no other origin, no form submission, no framing). Every address in it is
 * relative to where the page is served, so the page works as well under a path prefix (the demo's
 * `/relay/`, a shop's reverse proxy) as at the origin's root.
 *
 * The token goes only into the `Authorization` header of the `PUT`: its field has no `name` (a
 * form that somehow submits without the script sends no token into a URL), it is emptied once the
 * registration is saved, and nothing is ever written to storage.
 */
const PAGES: Readonly<Record<string, { type: string; body: string }>> = {
  '/': { type: 'text/html; charset=utf-8', body: html() },
  '/owner.js': { type: 'text/javascript; charset=utf-8', body: script() },
  '/owner.css': { type: 'text/css; charset=utf-8', body: style() },
};

const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

export function isOwnerPagePath(pathname: string): boolean {
  return Object.hasOwn(PAGES, pathname);
}

export function answerOwnerPage(pathname: string, request: Request): Response {
  const page = PAGES[pathname]!;
  const method = request.method.toUpperCase();
  const headers = {
    'Content-Type': page.type,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-cache',
  };
  if (method !== 'GET' && method !== 'HEAD') {
    return new FastResponse(`Method ${method} is not allowed here. Allowed: GET, HEAD\n`, {
      status: 405,
      headers: { ...headers, 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' },
    });
  }
  return new FastResponse(method === 'HEAD' ? null : page.body, { status: 200, headers });
}

function html(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Register your website · live-visitors relay</title>
<link rel="stylesheet" href="owner.css">
<script type="module" src="owner.js"></script>
</head>
<body>
<main>
<h1>Show your live visitor count</h1>
<p>This relay asks the analytics service for your website's count once a minute and answers every shopper from that one request, so your API token never goes into your pages. Your token proves the website is yours; it is kept encrypted and is never shown again.</p>
<form id="register" autocomplete="off" novalidate>
<label>Website ID <input id="website-id" required maxlength="256" spellcheck="false" autocapitalize="off"></label>
${sourceFieldsHtml()}
<label id="token-field">API token <input id="token" type="password" required maxlength="256" spellcheck="false" autocapitalize="off" autocomplete="off"></label>
<label>Your shop's addresses <small>(one per line, like https://shop.example; empty: any site may show the count)</small>
<textarea id="origins" rows="2" spellcheck="false" autocapitalize="off"></textarea></label>
<button type="submit">Register</button>
</form>
<p id="status" role="status" aria-live="polite"></p>
<section id="result" hidden>
<h2>Registered</h2>
<p>Right now: <strong id="count">…</strong></p>
<h3>On your pages</h3>
<p>Paste this where the sentence should appear:</p>
<pre><code id="snippet"></code></pre>
<h3>In Google Tag Manager</h3>
<p>In the Live visitors tag, fill in:</p>
<dl>
<dt>Website ID</dt><dd><code id="tag-website-id"></code></dd>
<dt>Relay or API base</dt><dd><code id="tag-api-base"></code></dd>
<dt>API token</dt><dd>leave it empty: the relay holds it</dd>
</dl>
</section>
</main>
</body>
</html>
`;
}

function script(): string {
  return `// The owner page's script: registers with PUT /api/v1/websites/{id}, then shows the count and what to paste.
const $ = (id) => document.getElementById(id);
const SCRIPT_URL = 'https://cdn.jsdelivr.net/npm/live-visitors@0/dist/live-visitors.js';
// The relay's address: its origin, with the path prefix it is mounted under when there is one.
const base = new URL('.', import.meta.url).href.replace(/\\/$/, '');
${SOURCE_FORM_SCRIPT}
// With a source, its own key proves the website is yours: the realtime API's token field goes.
const onKind = (kind) => {
  $('token-field').hidden = kind !== '';
  $('token').disabled = kind !== '';
};
showSourceFields(onKind);
$('source-kind').addEventListener('change', () => showSourceFields(onKind));

$('register').addEventListener('submit', async (event) => {
  event.preventDefault();
  const websiteId = $('website-id').value.trim();
  const origins = $('origins').value.split(/\\s+/).filter((origin) => origin !== '');
  const status = $('status');
  let source;
  try {
    source = readSource();
  } catch (error) {
    status.textContent = error.message;
    return;
  }
  if (!websiteId || (source === null && !$('token').value.trim())) {
    status.textContent = 'Enter the website ID and its API token.';
    return;
  }
  status.textContent = 'Checking the token with the analytics service…';
  $('result').hidden = true;
  let response;
  try {
    response = await fetch(base + '/api/v1/websites/' + encodeURIComponent(websiteId), {
      method: 'PUT',
      headers:
        source === null
          ? { Authorization: 'Bearer ' + $('token').value.trim(), 'Content-Type': 'application/json' }
          : { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...(origins.length > 0 ? { allowOrigins: origins } : {}), ...(source === null ? {} : { source }) }),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch {
    status.textContent = 'The relay could not be reached. Check your connection and try again.';
    return;
  }
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    status.textContent = typeof answer.error === 'string' ? answer.error : 'The relay answered ' + response.status + '.';
    return;
  }
  // Saved: the token and the source's secrets leave the page.
  $('token').value = '';
  forgetSecrets();
  status.textContent = response.status === 201 ? 'Registered.' : 'Registration updated.';
  show(websiteId);
});

function show(websiteId) {
  const attribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  $('snippet').textContent =
    '<script type="module" src="' + SCRIPT_URL + '"></' + 'script>\\n' +
    '<live-visitors website-id="' + attribute(websiteId) + '" api-base="' + attribute(base) + '"></live-visitors>';
  $('tag-website-id').textContent = websiteId;
  $('tag-api-base').textContent = base;
  $('result').hidden = false;
  count(websiteId);
}

async function count(websiteId) {
  const shown = $('count');
  shown.textContent = '…';
  try {
    const response = await fetch(base + '/api/v1/realtime?websiteId=' + encodeURIComponent(websiteId), { cache: 'no-store', credentials: 'omit' });
    const answer = await response.json();
    shown.textContent = response.ok
      ? answer.currentVisitors + (answer.currentVisitors === 1 ? ' visitor' : ' visitors') + ' on your website' +
        (answer.windowMinutes ? ' in the last ' + answer.windowMinutes + ' minutes' : '')
      : 'not available yet (' + (answer.error ?? response.status) + ')';
  } catch {
    shown.textContent = 'not available yet';
  }
}
`;
}

function style(): string {
  return `body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1a1a1a; background: #fafafa; }
main { max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
form { display: grid; gap: 0.75rem; }
label { display: grid; gap: 0.25rem; font-weight: 600; }
small { font-weight: 400; color: #555; }
input, textarea { font: inherit; padding: 0.4rem 0.5rem; border: 1px solid #999; border-radius: 4px; }
button { font: inherit; justify-self: start; padding: 0.4rem 1rem; }
pre { background: #eee; padding: 0.75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
#status:empty { display: none; }
[hidden] { display: none !important; }
fieldset { display: grid; gap: 0.75rem; border: 1px solid #ccc; border-radius: 4px; }
.hint { margin: 0; font-size: 0.9em; color: #555; }
select { font: inherit; padding: 0.4rem 0.5rem; }
`;
}
