import type { Page } from 'playwright-core';

/** What a shopper sees of one `<live-visitors>`, and what it says about itself. */
export interface WidgetReading {
  /** The reflected `state` attribute. */
  state: string | null;
  /** The `count` property. */
  count: number | null;
  /** The text as rendered: the shadow tree, with slotted light DOM where a slot shows it (nothing under `display: none`). */
  text: string;
}

/**
 * Runs in the page. A string, not a function: a bundler's helpers (such as esbuild's `__name`)
 * around inner functions would not exist there.
 */
const READ_WIDGETS = `(() => {
  const textOf = (node) => {
    if (node instanceof HTMLSlotElement) return node.assignedNodes({ flatten: true }).map(textOf).join('');
    if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
    if (node.nodeType !== Node.ELEMENT_NODE) return '';
    // Not rendered, not seen: the closed disclosure.
    if (getComputedStyle(node).display === 'none') return '';
    return [...(node.shadowRoot ?? node).childNodes].map(textOf).join('');
  };
  return [...document.querySelectorAll('live-visitors')].map((widget) => ({
    state: widget.getAttribute('state'),
    count: widget.count,
    text: textOf(widget).replace(/\\s+/g, ' ').trim(),
  }));
})()`;

/** Every `<live-visitors>` of the page, in document order. */
export async function readWidgets(page: Page): Promise<WidgetReading[]> {
  return page.evaluate<WidgetReading[]>(READ_WIDGETS);
}

const BROKEN = [/NaN/, /undefined/, /null/, /[<>]/, /(^|\D)0 people/];

/** The first sign of broken text ("NaN", "undefined", "null", markup, "0 people"), or null. */
export function brokenText(text: string): string | null {
  return BROKEN.find((pattern) => pattern.test(text))?.source ?? null;
}

/** The number the sentence shows, or null when no number shows. */
export function shownCount(text: string): number | null {
  const match = /\d[\d,.\u202f\u00a0]*/.exec(text);
  return match ? Number(match[0].replace(/\D/g, '')) : null;
}
