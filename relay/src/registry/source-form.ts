/**
 * The "Where your count comes from" part of a registration form: a choice of the
 * realtime API (the default) or one of the sources, the fields of the chosen kind with where to
 * create its key, and the script that reads them into the `source` the registration API and the
 * Shopify app's settings take. Plain HTML and browser JavaScript in strings, as the owner page's.
 * Secret fields have no `name` and are emptied once saved, like the token.
 */

interface FieldSpec {
  readonly field: string;
  readonly label: string;
  /** Said after the label, smaller: what to enter, an example. */
  readonly note?: string;
  /** Written only, never shown again. */
  readonly secret?: boolean;
  /** A service account's JSON key: several lines, read as JSON. */
  readonly json?: boolean;
  readonly optional?: boolean;
  /** The field that names the site at the service (the website's ID on this relay is derived from it). */
  readonly site?: boolean;
}

interface KindSpec {
  readonly kind: string;
  readonly name: string;
  /** Where the owner creates the key and the least it needs, in a sentence or two. */
  readonly hint: string;
  readonly fields: readonly FieldSpec[];
  /** Whether the service answers a wrong key and a key that may not read the site differently (else the owner hears "the key or the site"). */
  readonly tellsKeyFromSite: boolean;
  /** The secret that proves ownership, in the owner's words, for the page's introduction. */
  readonly proof: string;
}

const BASE = (example: string): FieldSpec => ({
  field: 'base',
  label: 'API address',
  note: `only if not the public service, like ${example}`,
  optional: true,
});

const KINDS: readonly KindSpec[] = [
  {
    kind: 'plausible',
    name: 'Plausible',
    // Plausible answers 401 "Invalid API key or site ID" for both.
    tellsKeyFromSite: false,
    proof: 'Plausible Stats API key',
    hint: 'Create a Stats API key in Plausible: your account settings › API keys. The count is unique visitors in the last 5 minutes.',
    fields: [
      { field: 'siteId', label: 'Site domain, as in Plausible', site: true },
      { field: 'apiKey', label: 'Stats API key', secret: true },
      BASE('https://plausible.shop.example'),
    ],
  },
  {
    kind: 'umami',
    name: 'Umami',
    // Umami answers 401 for a website the credential may not view, or that does not exist.
    tellsKeyFromSite: false,
    proof: 'Umami API key (or view-only user)',
    hint: "Umami Cloud: Settings › API keys. Self-hosted: leave the key empty and enter a view-only user and its password, and your Umami's API address ending in /api. The count is visitors in the last 5 minutes.",
    fields: [
      { field: 'websiteId', label: 'Website ID, as in Umami', site: true },
      { field: 'apiKey', label: 'API key (Umami Cloud)', secret: true, optional: true },
      { field: 'username', label: 'User name (self-hosted)', optional: true },
      { field: 'password', label: 'Password (self-hosted)', secret: true, optional: true },
      BASE('https://umami.shop.example/api'),
    ],
  },
  {
    kind: 'matomo',
    name: 'Matomo',
    tellsKeyFromSite: false,
    proof: 'Matomo auth token',
    hint: 'Create an auth token in Matomo: Administration › Personal › Security › Auth tokens, for a user with view access to this site only.',
    fields: [
      { field: 'base', label: "Your Matomo's address", note: 'like https://matomo.shop.example' },
      { field: 'siteId', label: 'Site ID', note: 'a number', site: true },
      { field: 'tokenAuth', label: 'Auth token', secret: true },
    ],
  },
  {
    kind: 'ga4',
    name: 'Google Analytics 4',
    // Google answers 401 for a bad key and 403 or 404 for a property the account may not read.
    tellsKeyFromSite: true,
    proof: "service account's JSON key",
    hint: "Create a service account and a JSON key in the Google Cloud console (IAM › Service accounts › Keys), turn on the Google Analytics Data API, and add the account's e-mail as a Viewer in GA4's Property access management.",
    fields: [
      { field: 'propertyId', label: 'Property ID', note: 'a number, not the G-… measurement ID', site: true },
      { field: 'credentials', label: "Service account's JSON key", note: 'paste the whole file', secret: true, json: true },
    ],
  },
  {
    kind: 'fathom',
    name: 'Fathom',
    // Fathom answers 401 for a bad key and 404 for a site it does not know.
    tellsKeyFromSite: true,
    proof: 'Fathom API key',
    hint: 'Create an API key in Fathom: Settings › API, read-only for this site. Every call counts as a pageview on your Fathom plan: the relay asks once per interval, not once per shopper.',
    fields: [
      { field: 'siteId', label: 'Site ID, as in Fathom', site: true },
      { field: 'apiKey', label: 'API key', secret: true },
    ],
  },
];

/** What the owner page and the registration's refusals call a kind and its fields: the form's own labels. */
export interface SourceWords {
  readonly name: string;
  readonly proof: string;
  readonly hint: string;
  readonly tellsKeyFromSite: boolean;
  /** Field name to its label, as the form shows it. */
  readonly labels: Readonly<Record<string, string>>;
  /** The field that names the site, and the form's field for the API address (every kind has one, shown or not). */
  readonly siteField: string;
}

/** Each kind's words, for the page's script (as JSON) and the relay's refusals. */
export const SOURCE_WORDS: Readonly<Record<string, SourceWords>> = Object.fromEntries(
  KINDS.map(({ kind, name, proof, hint, tellsKeyFromSite, fields }) => [
    kind,
    {
      name,
      proof,
      hint,
      tellsKeyFromSite,
      labels: Object.fromEntries([['base', 'API address'], ...fields.map((spec) => [spec.field, spec.label])]),
      siteField: fields.find((spec) => spec.site)!.field,
    },
  ]),
);

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

function fieldHtml(kind: string, spec: FieldSpec): string {
  const id = `source-${kind}-${spec.field}`;
  const common = `id="${id}" data-field="${spec.field}"${spec.optional ? '' : ' required'} spellcheck="false" autocapitalize="off" autocomplete="off"`;
  const control = spec.json
    ? `<textarea ${common} data-secret data-json rows="4"></textarea>`
    : `<input ${common}${spec.secret ? ' type="password" data-secret' : ''} maxlength="2048">`;
  const note = spec.note ? ` <small>(${escapeHtml(spec.note)})</small>` : '';
  return `<label>${escapeHtml(spec.label)}${note} ${control}</label>`;
}

/** The choice and every kind's fields, the realtime API's token field left to the page around it. */
export function sourceFieldsHtml(): string {
  const options = KINDS.map(({ kind, name }) => `<option value="${kind}">${escapeHtml(name)}</option>`).join('');
  const groups = KINDS.map(
    ({ kind, name, hint, fields }) =>
      `<fieldset data-kind="${kind}" hidden><legend>${escapeHtml(name)}</legend><p class="hint">${escapeHtml(hint)}</p>${fields
        .map((spec) => fieldHtml(kind, spec))
        .join('')}</fieldset>`,
  ).join('\n');
  return `<label>Where your count comes from <select id="source-kind"><option value="">The realtime visitors API (its API token)</option>${options}</select></label>
${groups}`;
}

/**
 * Browser JavaScript defining `sourceKind()`, `readSource()` (the chosen source as the API takes
 * it, or null for the realtime API; throws in words for a JSON key that is not JSON) and
 * `forgetSecrets()`, and showing the chosen kind's fields; `onKind` is called with the kind.
 */
export const SOURCE_FORM_SCRIPT = `const sourceKind = () => document.getElementById('source-kind').value;
const sourceGroups = () => [...document.querySelectorAll('fieldset[data-kind]')];
function showSourceFields(onKind) {
  for (const group of sourceGroups()) {
    group.hidden = group.dataset.kind !== sourceKind();
    // Only the shown fields take part in the form.
    for (const control of group.querySelectorAll('[data-field]')) control.disabled = group.hidden;
  }
  onKind?.(sourceKind());
}
function readSource() {
  const kind = sourceKind();
  if (kind === '') return null;
  const source = { kind };
  const group = document.querySelector('fieldset[data-kind="' + kind + '"]');
  for (const control of group.querySelectorAll('[data-field]')) {
    const value = control.value.trim();
    if (value === '') continue;
    if (control.hasAttribute('data-json')) {
      try {
        source[control.dataset.field] = JSON.parse(value);
      } catch {
        throw new Error('The JSON key is not JSON: paste the whole file Google gave you, from { to }.');
      }
    } else source[control.dataset.field] = value;
  }
  return source;
}
function forgetSecrets() {
  for (const control of document.querySelectorAll('[data-secret]')) control.value = '';
}
`;
