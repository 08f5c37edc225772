import { css } from '@lit/reactive-element';

// The host keeps the default `display: inline` of custom elements: with nothing to show it takes
// no space at all, and a long sentence wraps like the page's text, the dot on its first line.
export const styles = css`
  /* No fallbacks: an unset custom property makes these inherit, as colour and font do anyway. */
  :host {
    color: var(--live-visitors-color);
    font-family: var(--live-visitors-font);
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
`;
