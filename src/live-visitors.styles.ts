import { unsafeCSS } from '@lit/reactive-element';

// The host keeps the default `display: inline` of custom elements: with nothing to show it takes
// no space at all, and a long sentence wraps like the page's text, the dot on its first line.
export const styles = unsafeCSS(`
  /* No fallbacks: an unset custom property makes these inherit, as colour and font do anyway. */
  :host {
    color: var(--live-visitors-color);
    font-family: var(--live-visitors-font);
    /* The disclosure's containing block; no offset, so nothing moves. */
    position: relative;
  }

  /* A dot that breathes: opacity only, so the compositor runs it without repainting the page. */
  .indicator {
    display: inline-block;
    vertical-align: 0.1em;
    margin-inline-end: var(--live-visitors-gap, 0.5em);
    width: 0.5em;
    height: 0.5em;
    border-radius: 50%;
    background: var(--live-visitors-accent, #e0432b);
    animation: pulse 2s infinite;
  }

  .count {
    font-weight: var(--live-visitors-count-weight, 700);
    color: var(--live-visitors-count-color);
  }

  /* Shown on hover or focus (a tap focuses), out of the flow, below the sentence's start (right
     of it in right-to-left text): opening it moves nothing. Escape hides it with [hidden]. */
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

  /* A new number: its background fades from the highlight colour; colour only, so nothing moves. */
  @media (prefers-reduced-motion: no-preference) {
    .changed {
      animation: highlight 1.5s ease-out;
    }
  }

  @keyframes highlight {
    from {
      background: var(--live-visitors-highlight, #ffe58a);
    }
  }

  @keyframes pulse {
    50% {
      opacity: 0.3;
    }
  }

  @media (prefers-reduced-motion: reduce) {
    .indicator {
      animation: none;
    }
  }
`);
