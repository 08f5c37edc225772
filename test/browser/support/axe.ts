import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** One axe finding, reduced to what a failure message needs. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/**
 * Runs axe-core (its own source, injected into the page) on `selector`, or on the whole
 * document when it is left out. axe walks open shadow roots, so the element's rendering is
 * audited, not only its light DOM. Returns the violations, empty when there are none.
 */
export async function auditAccessibility(page: Page, selector?: string): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  return page.evaluate(async (context) => {
    const { axe: runner } = window as unknown as { axe: typeof axe };
    const results = await runner.run(context ? { include: [context] } : document, { resultTypes: ['violations'] });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      nodes: violation.nodes.map((node) => `${JSON.stringify(node.target)}: ${node.failureSummary ?? ''}`),
    }));
  }, selector ?? null);
}

/** Violations as a readable failure message: rule, impact, help, and each offending node. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map(({ id, impact, help, nodes }) => [`${id} (${impact ?? 'no impact'}): ${help}`, ...nodes.map((node) => `  - ${node}`)].join('\n'))
    .join('\n');
}
