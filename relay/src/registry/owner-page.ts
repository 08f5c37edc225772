import { FastResponse } from 'srvx';
import { OWNER_PAGE_SCRIPT } from './owner-page-script.js';
import { OWNER_PAGE_STYLES } from './owner-page-styles.js';
import { sourceFieldsHtml } from './source-form.js';

/**
 * The relay's page for owners, at `/`: where the count comes from and its proof, the shop's
 * origins, Register; then the live count, the website's state, and exactly what to paste. No
 * framework: one HTML file, one script, one stylesheet, served from the relay's origin under a
 * Content Security Policy that allows nothing else (no inline script or style, no other origin, no
 * form submission, no framing). Every address in it is relative to where the page is served, so
 * the page works as well under a path prefix (the demo's `/relay/`, a shop's reverse proxy) as at
 * the origin's root.
 *
 * The secrets go only into the `Authorization` header or the body of the request: their fields
 * have no `name` (a form that somehow submits without the script sends no secret into a URL), they
 * are emptied once the registration is saved, and nothing is ever written to storage.
 */
export class OwnerPage {
  readonly #pages: Promise<Readonly<Record<string, { type: string; body: string }>>>;

  /**
   * @param scriptUrl where the snippets load `live-visitors.js` from: the operator's `scriptUrl`, or
   *   the relay's own copy as a path from its root; null when the relay has neither.
   */
  constructor(scriptUrl: Promise<string | null> | string | null) {
    this.#pages = Promise.resolve(scriptUrl).then((url) => ({
      '/': { type: 'text/html; charset=utf-8', body: html(url) },
      '/owner.js': { type: 'text/javascript; charset=utf-8', body: OWNER_PAGE_SCRIPT },
      '/owner.css': { type: 'text/css; charset=utf-8', body: OWNER_PAGE_STYLES },
    }));
  }

  static isPath(pathname: string): boolean {
    return pathname === '/' || pathname === '/owner.js' || pathname === '/owner.css';
  }

  async answer(pathname: string, request: Request): Promise<Response> {
    const page = (await this.#pages)[pathname]!;
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
}

const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

function attribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function html(scriptUrl: string | null): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="live-visitors-script" content="${attribute(scriptUrl ?? '')}">
<title>Register your website · live-visitors relay</title>
<link rel="stylesheet" href="owner.css">
<script type="module" src="owner.js"></script>
</head>
<body>
<main>
<h1>Show your live visitor count</h1>
<p>This relay asks your analytics service for your website's count once a minute and answers every shopper from that one request, so your secret never goes into your pages. <span id="intro-proof">Your API token proves the website is yours</span>; it is kept encrypted and is never shown again.</p>
<form id="register" autocomplete="off" novalidate>
${sourceFieldsHtml()}
<div class="field" id="website-id-field"><label for="website-id">Website ID</label>
<small id="website-id-hint">The name your realtime visitors API knows your website by, as in its settings.</small>
<input id="website-id" aria-describedby="website-id-hint" required maxlength="256" spellcheck="false" autocapitalize="off"></div>
<div class="field" id="token-field"><label for="token">API token</label>
<small id="token-hint">From the same settings: it proves the website is yours.</small>
<input id="token" aria-describedby="token-hint" type="password" required maxlength="256" spellcheck="false" autocapitalize="off" autocomplete="off"></div>
<label>Your shop's addresses <small>(one per line, like https://shop.example; empty: any site may show the count)</small>
<textarea id="origins" rows="2" spellcheck="false" autocapitalize="off"></textarea></label>
<div class="actions">
<button type="submit">Register</button>
<button type="button" id="look">Show its state</button>
<button type="button" id="remove">Remove it from this relay</button>
</div>
<p class="hint">Already registered? Fill in the same fields and press <b>Show its state</b> to see its last answer, or <b>Remove it from this relay</b> with the same proof.</p>
</form>
<p id="status" role="status" aria-live="polite"></p>
<section id="result" hidden>
<h2>Your website on this relay</h2>
<p>Website ID: <code id="shown-website-id"></code></p>
<p>Last answer: <strong id="count">…</strong> <span id="count-when"></span></p>
<p id="count-note" hidden></p>
<h3>On your pages</h3>
<div id="no-script" hidden><p>This relay has no copy of the element's script and no CDN address for it: ask its operator to build it (npm run build) or to set scriptUrl.</p></div>
<div id="paste">
<p>Paste this into your page's &lt;head&gt;:</p>
<pre><code id="snippet-head"></code></pre>
<p>and this where the sentence should appear, beside your offer:</p>
<pre><code id="snippet-element"></code></pre>
</div>
<h3>In Google Tag Manager</h3>
<p>In the Live visitors tag, fill in:</p>
<dl>
<dt>Website ID</dt><dd><code id="tag-website-id"></code></dd>
<dt>Relay or API base</dt><dd><code id="tag-api-base"></code></dd>
<dt>Script URL</dt><dd><code id="tag-script-url"></code> <small>(also add it to the template's "Injects scripts" permission)</small></dd>
<dt>API token</dt><dd>leave it empty: the relay holds it</dd>
</dl>
</section>
</main>
</body>
</html>
`;
}
