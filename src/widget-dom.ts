import type { About, Disclosure } from './disclosure.js';
import { part } from './dom-part.js';
import type { Sentence } from './messages.js';

/** The disclosure's lazy file, once it is in. */
export type DisclosureFile = typeof import('./disclosure.js');

/**
 * The element's shadow DOM without a template engine: a fixed skeleton, built once, in which
 * only text changes. Templates and the service's values go in as text nodes, never as markup.
 */
export class WidgetDom {
  readonly #root: ShadowRoot;
  readonly #fallback = document.createElement('slot');
  readonly #text = part('span', 'text');
  readonly #base = part('span', 'base', part('span', 'indicator'), this.#text);
  /** The explanation, from the first update that has its file on. */
  #disclosure: Disclosure | null = null;
  /** The sentence on screen, so an unchanged one (the same count a minute later) touches nothing. */
  #painted: string | null = null;
  /** The count on screen, or null while the fallback shows: a different one is highlighted. */
  #count: number | null = null;

  constructor(root: ShadowRoot) {
    this.#root = root;
    this.#fallback.name = 'fallback';
    // The dot is decoration: the sentence says it all.
    this.#base.firstElementChild!.setAttribute('aria-hidden', 'true');
  }

  /**
   * Shows the sentence, explained by `about` (none when off) once the disclosure's file is in, or
   * the `fallback` slot when there is no sentence.
   */
  show(sentence: Sentence | null, about: About | null, disclosures: DisclosureFile | undefined): void {
    if (sentence) this.#paint(sentence);
    else {
      this.#painted = null;
      this.#count = null;
    }
    this.#place(this.#base, !!sentence);
    this.#place(this.#fallback, !sentence);
    if (disclosures) this.#disclosure ??= new disclosures.Disclosure(this.#root.host as HTMLElement);
    this.#disclosure?.explain(this.#base, sentence && about);
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
    const { count, texts, number } = sentence;
    // A new count is highlighted; the first one painted (a cached count too) is not, nor the same
    // count in another notation or language.
    const changed = this.#count !== null && count !== this.#count;
    this.#count = count;
    this.#text.lang = sentence.lang;
    const emphasised = () => {
      const strong = part('strong', 'count', number);
      if (changed) strong.classList.add('changed');
      return strong;
    };
    // The first piece of text, then the number before every other piece.
    const [first, ...rest] = texts;
    this.#text.replaceChildren(first!, ...rest.flatMap((text) => [emphasised(), text]));
  }
}
