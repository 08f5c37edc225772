import { disclosureFor } from './disclosure.js';
import { part } from './dom-part.js';
import type { Sentence } from './messages.js';

/**
 * The element's shadow DOM without a template engine: a fixed skeleton, built once, in which
 * only text changes. Templates and the service's values go in as text nodes, never as markup.
 */
export class WidgetDom {
  readonly #root: ShadowRoot;
  readonly #fallback = document.createElement('slot');
  readonly #text = part('span', 'text');
  readonly #base = part('span', 'base', part('span', 'indicator'), this.#text);
  readonly #disclosure: HTMLElement;
  /** The disclosure's text, written again when it opens: its time then takes the language's own style. */
  #about: (() => string) | null = null;
  /** The sentence on screen, so an unchanged one (the same count a minute later) touches nothing. */
  #painted: string | null = null;
  /** The count on screen, or null while the fallback shows: a different one is highlighted. */
  #count: number | null = null;

  constructor(root: ShadowRoot) {
    this.#root = root;
    this.#disclosure = disclosureFor(root.host as HTMLElement, () => this.#writeAbout());
    this.#fallback.name = 'fallback';
    // The dot is decoration: the sentence says it all.
    this.#base.firstElementChild!.setAttribute('aria-hidden', 'true');
  }

  /** Shows the sentence with its disclosure (`about`'s text in `aboutLang`, none when off), or the `fallback` slot when there is none. */
  show(sentence: Sentence | null, about: (() => string) | null, aboutLang: string): void {
    if (sentence) this.#paint(sentence);
    else this.#painted = this.#count = null;
    this.#about = about;
    if (about) {
      this.#disclosure.lang = aboutLang;
      this.#writeAbout();
      // The sentence is the disclosure's trigger: one tab stop, described by it.
      this.#base.tabIndex = 0;
      this.#base.setAttribute('aria-describedby', this.#disclosure.id);
    } else {
      this.#base.removeAttribute('tabindex');
      this.#base.removeAttribute('aria-describedby');
    }
    this.#place(this.#base, !!sentence);
    this.#place(this.#disclosure, !!(sentence && about));
    this.#place(this.#fallback, !sentence);
  }

  /** Without an `about`, the disclosure is out of the page: its text no longer matters. */
  #writeAbout(): void {
    const text = this.#about?.() ?? '';
    if (this.#disclosure.textContent !== text) this.#disclosure.textContent = text;
  }

  /** Only our own nodes move: where a browser cannot adopt stylesheets, Lit put <style> elements here too. */
  #place(node: Element, shown: boolean): void {
    if (!shown) node.remove();
    else if (node.parentNode !== this.#root) this.#root.append(node);
  }

  #paint(sentence: Sentence): void {
    const painted = JSON.stringify(sentence);
    if (painted === this.#painted) return;
    this.#painted = painted;
    const { count } = sentence;
    // A new count is highlighted; the first one painted (a cached count too) is not, nor the same
    // count in another notation or language.
    const changed = this.#count !== null && count !== this.#count;
    this.#count = count;
    this.#text.lang = sentence.lang;
    this.#text.replaceChildren(
      ...sentence.parts.map((text, index) => {
        if (!(index % 2)) return text;
        const number = part('strong', 'count', text);
        if (changed) number.classList.add('changed');
        return number;
      }),
    );
  }
}
