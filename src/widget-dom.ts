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
  /** What is on screen, so an unchanged view (the same count a minute later) touches nothing. */
  #painted: string | null = null;

  constructor(root: ShadowRoot) {
    this.#root = root;
    this.#fallback.name = 'fallback';
    // The dot is decoration: the sentence says it all.
    this.#base.firstElementChild!.setAttribute('aria-hidden', 'true');
  }

  /** Shows the sentence, or the `fallback` slot when there is none. */
  show(sentence: Sentence | null): void {
    const painted = sentence ? JSON.stringify(sentence) : '';
    if (painted === this.#painted) return;
    this.#painted = painted;
    if (sentence) {
      this.#text.lang = sentence.lang;
      this.#text.replaceChildren(...sentence.parts.map((text, index) => (index % 2 ? part('strong', 'count', text) : text)));
    }
    // Only our own nodes move: where a browser cannot adopt stylesheets, Lit put <style> elements here too.
    const [shown, hidden] = sentence ? [this.#base, this.#fallback] : [this.#fallback, this.#base];
    hidden.remove();
    if (shown.parentNode !== this.#root) this.#root.append(shown);
  }
}

/** `<tag part="name" class="name">` holding `children`: parts for page authors, classes for our CSS. */
function part(tag: string, name: string, ...children: (Node | string)[]): HTMLElement {
  const element = document.createElement(tag);
  element.setAttribute('part', name);
  element.className = name;
  element.append(...children);
  return element;
}
