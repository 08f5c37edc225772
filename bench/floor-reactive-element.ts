// The floor we build on: Lit's ReactiveElement (properties, attributes, controllers, styles) without
// lit-html's templates, showing one property as text, built by the same config as ours.
import { css, ReactiveElement } from '@lit/reactive-element';

class BareElement extends ReactiveElement {
  static override styles = css`
    :host {
      display: inline;
    }
  `;
  static override properties = { label: {} };
  declare label: string;
  readonly #span = document.createElement('span');
  protected override update(changed: Map<PropertyKey, unknown>) {
    super.update(changed);
    this.#span.textContent = this.label;
    if (!this.#span.isConnected) this.renderRoot.append(this.#span);
  }
}
customElements.define('bare-element', BareElement);
