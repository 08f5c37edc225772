import { type About, formatAbout } from './about.js';
import { writeTimesInOwnStyle } from './count-time.js';
import { disclosureStyles } from './disclosure.styles.js';
import { part } from './dom-part.js';
import { listen } from './realtime/environment.js';

export type { About };

/**
 * What the number is and when it was collected, as a tooltip (the WAI-ARIA tooltip pattern): the
 * sentence is the element's one tab stop and is described by it, so a screen reader reads it on
 * focus. CSS opens it while the element is hovered or the sentence has focus (a tap focuses it
 * too). Escape closes it wherever focus is (WCAG 1.4.13), until pointer and focus have left. It
 * is positioned out of the flow: opening it moves nothing on the page. As it opens, before it is
 * painted or read, its text is written again with the time in the language's own way.
 *
 * A file of its own (dist/live-visitors-disclosure.js), loaded once a sentence shows: nothing of
 * it is seen before a hover, focus or tap, so the first paint never waits for it.
 */
export class Disclosure {
  readonly #tooltip = part('span', 'disclosure');
  #about: About | null = null;

  constructor(host: HTMLElement) {
    // Its styles join the element's own (Lit adopted those); a browser that cannot adopt a stylesheet
    // gets them as a <style>, as Lit does.
    const root = host.shadowRoot!;
    const sheet = disclosureStyles.styleSheet;
    if (sheet) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    else root.prepend(Object.assign(document.createElement('style'), { textContent: disclosureStyles.cssText }));
    const tooltip = this.#tooltip;
    tooltip.id = 'disclosure';
    tooltip.role = 'tooltip';
    const dismiss = (event: Event) => {
      if ((event as KeyboardEvent).key === 'Escape') tooltip.hidden = true;
    };
    // The document hears Escape only while the pointer or focus is on the element.
    listen(host, ['pointerenter', 'focusin'], () => {
      writeTimesInOwnStyle();
      this.#write();
      document.addEventListener('keydown', dismiss);
    });
    listen(host, ['pointerleave', 'focusout'], () => {
      if (host.matches(':hover,:focus-within')) return;
      tooltip.hidden = false;
      document.removeEventListener('keydown', dismiss);
    });
  }

  /**
   * Explains `sentence` (in the shadow root) with `about`, placing the tooltip right after it, or
   * takes the explanation away (null): then the sentence is no tab stop either.
   */
  explain(sentence: HTMLElement, about: About | null): void {
    const tooltip = this.#tooltip;
    this.#about = about;
    if (!about) {
      sentence.removeAttribute('tabindex');
      sentence.removeAttribute('aria-describedby');
      tooltip.remove();
      return;
    }
    tooltip.lang = about.lang;
    this.#write();
    sentence.tabIndex = 0;
    sentence.setAttribute('aria-describedby', tooltip.id);
    if (sentence.nextSibling !== tooltip) sentence.after(tooltip);
  }

  #write(): void {
    const text = this.#about ? formatAbout(this.#about) : '';
    if (this.#tooltip.textContent !== text) this.#tooltip.textContent = text;
  }
}
