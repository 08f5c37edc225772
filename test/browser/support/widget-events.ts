import type { BrowserContext, Page } from 'playwright-core';

/** One `<live-visitors>` as a test follows it: the events it fired, and what it shows now. */
export interface TrackedWidget {
  /** `A`, `B`, …: the element's place in the document when it was named. */
  name: string;
  /** `detail.count` of every `live-visitors-update` it fired, in order. */
  updates: number[];
  /** `detail` of every `live-visitors-error` it fired, in order. */
  errors: Array<{ kind: string; status: number | null; message: string }>;
  /** The reflected `state` attribute. */
  state: string | null;
  /** The `count` property. */
  count: number | null;
  /** The text as rendered (its sentence, or the slotted fallback). */
  text: string;
  /** Where it is: `document`, `shadow root of <tag>`, or `detached`. */
  place: string;
}

/**
 * An init script (a string: a bundler's helpers would not exist in the page). It records every
 * event of the element by the element that fired it, from before the first script, wherever the
 * element is: a listener on the document in the capture phase hears them all, as they bubble and
 * are composed, and `composedPath()[0]` is the element itself also inside an open shadow root.
 */
const TRACK_WIDGETS = `(() => {
  const events = new Map();
  const named = new Map();
  const eventsOf = (widget) => {
    if (!events.has(widget)) events.set(widget, { updates: [], errors: [] });
    return events.get(widget);
  };
  document.addEventListener('live-visitors-update', (event) => {
    eventsOf(event.composedPath()[0]).updates.push(event.detail.count);
  }, true);
  document.addEventListener('live-visitors-error', (event) => {
    const { kind, status, message } = event.detail;
    eventsOf(event.composedPath()[0]).errors.push({ kind, status, message });
  }, true);
  const textOf = (node) => {
    if (node instanceof HTMLSlotElement) return node.assignedNodes({ flatten: true }).map(textOf).join('');
    if (node.nodeType === Node.TEXT_NODE) return node.textContent ?? '';
    if (node.nodeType !== Node.ELEMENT_NODE) return '';
    // Not rendered, not seen: the closed disclosure.
    if (getComputedStyle(node).display === 'none') return '';
    return [...(node.shadowRoot ?? node).childNodes].map(textOf).join('');
  };
  const placeOf = (widget) => {
    if (!widget.isConnected) return 'detached';
    const root = widget.getRootNode();
    return root === document ? 'document' : 'shadow root of <' + root.host.localName + '>';
  };
  window.__liveVisitorsProbe = {
    /** Names the document's elements not named yet, in document order. */
    name() {
      for (const widget of document.querySelectorAll('live-visitors')) {
        if ([...named.values()].includes(widget)) continue;
        named.set(String.fromCharCode(65 + named.size), widget);
      }
      return [...named.keys()];
    },
    widget: (name) => named.get(name),
    read: () => [...named].map(([name, widget]) => ({
      name,
      ...structuredClone(eventsOf(widget)),
      state: widget.getAttribute('state'),
      count: widget.count,
      text: textOf(widget).replace(/\\s+/g, ' ').trim(),
      place: placeOf(widget),
    })),
  };
})()`;

/** Call before the context opens a page. */
export async function trackWidgets(context: BrowserContext): Promise<void> {
  await context.addInitScript(TRACK_WIDGETS);
}

/** Names the page's `<live-visitors>` (`A`, `B`, … in document order), so they can be followed wherever they move. */
export function nameWidgets(page: Page): Promise<string[]> {
  return page.evaluate<string[]>('window.__liveVisitorsProbe.name()');
}

/** Every named element: its events so far and what it shows. */
export function readTrackedWidgets(page: Page): Promise<TrackedWidget[]> {
  return page.evaluate<TrackedWidget[]>('window.__liveVisitorsProbe.read()');
}

/**
 * Runs `script` in the page with `widgets` bound to the named elements and `widget` to the first
 * (`await` allowed), then waits for their updates, e.g.
 * `onWidgets(page, ['A', 'B'], "document.querySelector('aside').append(...widgets)")`.
 */
export function onWidgets(page: Page, names: string[], script: string): Promise<void> {
  const widgets = `${JSON.stringify(names)}.map((name) => window.__liveVisitorsProbe.widget(name))`;
  return page.evaluate<void>(`(async (widgets) => {
    const [widget] = widgets;
    ${script};
    await Promise.all(widgets.map((each) => each.updateComplete));
  })(${widgets})`);
}

/** `onWidgets` for one element. */
export function onWidget(page: Page, name: string, script: string): Promise<void> {
  return onWidgets(page, [name], script);
}
