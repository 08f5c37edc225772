import { writeTimesInOwnStyle } from './count-time.js';
import { part } from './dom-part.js';
import { listen } from './realtime/environment.js';

/**
 * What the number is and when it was collected, as a tooltip (the WAI-ARIA tooltip pattern): the
 * sentence is the element's one tab stop and is described by it, so a screen reader reads it on
 * focus. CSS opens it while the element is hovered or the sentence has focus (a tap focuses it
 * too). Escape closes it wherever focus is (WCAG 1.4.13), until pointer and focus have left. It
 * is positioned out of the flow: opening it moves nothing on the page. As it opens, before it is
 * painted or read, `opening` rewrites its text with the time in the language's own way.
 */
export function disclosureFor(host: HTMLElement, opening: () => void): HTMLElement {
  const disclosure = part('span', 'disclosure');
  disclosure.id = 'disclosure';
  disclosure.role = 'tooltip';
  const dismiss = (event: Event) => {
    if ((event as KeyboardEvent).key === 'Escape') disclosure.hidden = true;
  };
  // The document hears Escape only while the pointer or focus is on the element.
  const near = () => {
    writeTimesInOwnStyle();
    opening();
    document.addEventListener('keydown', dismiss);
  };
  const away = () => {
    if (host.matches(':hover,:focus-within')) return;
    disclosure.hidden = false;
    document.removeEventListener('keydown', dismiss);
  };
  listen(host, ['pointerenter', 'focusin'], near);
  listen(host, ['pointerleave', 'focusout'], away);
  return disclosure;
}
