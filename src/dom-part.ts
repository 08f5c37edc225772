/** `<tag part="name" class="name">` holding `children`: parts for page authors, classes for our CSS. */
export function part(tag: string, name: string, ...children: (Node | string)[]): HTMLElement {
  const element = document.createElement(tag);
  element.setAttribute('part', name);
  element.className = name;
  element.append(...children);
  return element;
}
