import type { Locator } from 'playwright-core';

/**
 * The text a sighted shopper reads in a <live-visitors>: its sentence, or the fallback content
 * assigned to its slot (empty when it shows nothing).
 */
export function shownText(widget: Locator): Promise<string> {
  return widget.evaluate((element) => {
    const texts: string[] = [];
    for (const node of element.shadowRoot!.querySelectorAll('[part="text"], slot')) {
      if (node instanceof HTMLSlotElement)
        for (const slotted of node.assignedNodes({ flatten: true })) texts.push(slotted.textContent ?? '');
      else texts.push(node.textContent ?? '');
    }
    return texts.join('').trim();
  });
}

/** The sentence the element shows in English for `count` people. */
export function sentence(count: number): string {
  return `${count} ${count === 1 ? 'person is' : 'people are'} browsing this shop right now`;
}
