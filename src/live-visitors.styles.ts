import { unsafeCSS } from '@lit/reactive-element';

// A literal with nothing interpolated, so nothing is unsafe: `unsafeCSS` only skips what the `css`
// tag adds, a check of interpolated values and its error texts (155 B of the bundle).

// The host keeps the default `display: inline` of custom elements: with nothing to show it takes
// no space at all, and a long sentence wraps like the page's text, the dot on its first line.
export const styles = unsafeCSS(`
  /* No fallbacks: an unset custom property makes these inherit, as colour and font do anyway. */
  :host {
    color: var(--live-visitors-color);
    font-family: var(--live-visitors-font);
    /* The disclosure's containing block (its styles come with its file: disclosure.styles.ts); no
       offset, so nothing moves. */
    position: relative;
    /* Laid out in the page's direction whatever text surrounds it: in a right-to-left page, an
       English sentence after English text keeps the dot on its right (inline start). */
    unicode-bidi: isolate;
  }

  .indicator {
    display: inline-block;
    vertical-align: 0.1em;
    margin-inline-end: var(--live-visitors-gap, 0.5em);
    width: 0.5em;
    height: 0.5em;
    border-radius: 50%;
    background: var(--live-visitors-accent, #e0432b);
  }

  .count {
    font-weight: var(--live-visitors-count-weight, 700);
    color: var(--live-visitors-count-color);
  }

  /* Motion only for those who have not asked for less. The dot breathes by opacity alone, so the
     compositor runs it without repainting the page; a new number's background fades from the
     highlight colour, which moves nothing. */
  @media (prefers-reduced-motion: no-preference) {
    .indicator {
      animation: pulse 2s infinite;
    }

    .changed {
      animation: highlight 1.5s;
    }
  }

  @keyframes pulse {
    50% {
      opacity: 0.3;
    }
  }

  @keyframes highlight {
    from {
      background: var(--live-visitors-highlight, #ffe58a);
    }
  }
`);
