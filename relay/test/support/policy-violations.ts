import type { Page } from 'playwright-core';

/** The Content Security Policy violations Chromium reports on `page`'s console from now on: a page of ours must cause none. */
export function policyViolations(page: Page): string[] {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}
