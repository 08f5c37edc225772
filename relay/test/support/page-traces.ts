import type { Page } from 'playwright-core';

/**
 * Every place a secret typed into the owner page could linger after submitting: the field itself,
 * the document, the URL, any storage, and the URLs the page fetched. Tests assert the secret is in
 * none of them.
 */
export function pageTraces(page: Page, fieldId: string) {
  return page.evaluate(
    async (id) => ({
      field: (document.getElementById(id) as HTMLInputElement).value,
      html: document.documentElement.outerHTML,
      url: location.href,
      storage: JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
      caches: 'caches' in self ? (await caches.keys()).join() : '',
      databases: 'indexedDB' in self && indexedDB.databases ? JSON.stringify(await indexedDB.databases()) : '',
      fetched: performance
        .getEntries()
        .map((entry) => entry.name)
        .join('\n'),
    }),
    fieldId,
  );
}
