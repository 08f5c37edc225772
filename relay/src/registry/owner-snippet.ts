/**
 * The README's recommended snippet (its quick start's "A snippet on any page"), as the owner page
 * hands it out: the deferred loader for the page's `<head>`, and the element with the lines kept for
 * the sentence. relay/test/owner-page-snippet.test.ts holds these lines equal to the README's; the
 * page fills in the script URL, the website ID and the relay's address (`fillSnippet`).
 */
export const SNIPPET = Object.freeze({
  head: [
    '<script>',
    '  // live-visitors: fetched at once when this browser has a count stored, else once the page has loaded',
    '  (() => {',
    '    const start = () => {',
    "      const script = document.createElement('script');",
    "      script.type = 'module';",
    "      script.src = 'https://your-cdn.example/live-visitors.js';",
    "      script.setAttribute('blocking', 'render'); // added in <head>: the stored count is in the first frame",
    '      document.head.append(script);',
    '    };',
    '    let stored = false;',
    '    try {',
    '      // Looked for only on a return (from a page of this site, a reload, back or forward):',
    '      // a first visit does not pay for the look.',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the README's own code, a template literal in the shop's page
    '      const returning = document.referrer.startsWith(`${location.origin}/`) ||',
    "        ['reload', 'back_forward'].includes(performance.getEntriesByType('navigation')[0]?.type);",
    "      stored = returning && Object.keys(localStorage).some((key) => key.startsWith('live-visitors:v1:'));",
    '    } catch {}',
    '    if (stored) start();',
    "    else if (document.readyState === 'complete') setTimeout(start, 500);",
    "    else addEventListener('load', () => setTimeout(start, 500), { once: true });",
    '  })();',
    '</script>',
  ].join('\n'),
  element: [
    '<live-visitors website-id="YOUR_WEBSITE_ID" api-base="https://YOUR_RELAY"',
    '  style="display: block; min-height: 2lh"></live-visitors>',
  ].join('\n'),
});

/** What the README writes where a shop puts its own values. */
export const SNIPPET_PLACEHOLDERS = Object.freeze({
  scriptUrl: 'https://your-cdn.example/live-visitors.js',
  websiteId: 'YOUR_WEBSITE_ID',
  apiBase: 'https://YOUR_RELAY',
});

/**
 * Browser JavaScript defining `fillSnippet(values)`: the two parts with the shop's values, the
 * script URL escaped for the string it sits in, the others for the attributes they sit in.
 */
export const SNIPPET_SCRIPT = `const SNIPPET = ${JSON.stringify(SNIPPET)};
const SNIPPET_PLACEHOLDERS = ${JSON.stringify(SNIPPET_PLACEHOLDERS)};
function fillSnippet({ scriptUrl, websiteId, apiBase }) {
  const inString = (text) => text.replace(/[\\\\'<]/g, (character) => '\\\\x' + character.charCodeAt(0).toString(16).toUpperCase());
  const inAttribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return {
    head: SNIPPET.head.replace(SNIPPET_PLACEHOLDERS.scriptUrl, () => inString(scriptUrl)),
    element: SNIPPET.element
      .replace(SNIPPET_PLACEHOLDERS.websiteId, () => inAttribute(websiteId))
      .replace(SNIPPET_PLACEHOLDERS.apiBase, () => inAttribute(apiBase)),
  };
}
`;
