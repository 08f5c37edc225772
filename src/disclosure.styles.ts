import { unsafeCSS } from '@lit/reactive-element';

// The disclosure's styles, in its own lazy file with it (src/disclosure.ts): a literal with nothing
// interpolated, as src/live-visitors.styles.ts explains, and squeezed by the same build step.

/* Shown on hover or focus (a tap focuses), out of the flow, below the sentence's start (right of
   it in right-to-left text): opening it moves nothing. Escape hides it with [hidden]. */
export const disclosureStyles = unsafeCSS(`
  .disclosure {
    display: none;
    position: absolute;
    top: 100%;
    inset-inline-start: 0;
    z-index: 1;
    width: max-content;
    max-width: 20em;
    padding: 0.3em 0.6em;
    border-radius: 0.3em;
    background: #222;
    color: #fff;
    font-size: 0.85em;
  }

  :host(:hover) .disclosure:not([hidden]),
  .base:focus + .disclosure:not([hidden]) {
    display: block;
  }
`);
