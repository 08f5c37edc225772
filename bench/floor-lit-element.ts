// A size floor: a bare LitElement (one property, a style, a template), built by the same config as ours.
import { css, html, LitElement } from 'lit';

class BareElement extends LitElement {
  static override styles = css`
    :host {
      display: inline;
    }
  `;
  static override properties = { label: {} };
  declare label: string;
  override render() {
    return html`<span>${this.label}</span>`;
  }
}
customElements.define('bare-element', BareElement);
