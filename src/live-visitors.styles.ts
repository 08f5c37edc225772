import { css } from '@lit/reactive-element';

// The host keeps the default `display: inline` of custom elements: with nothing to show it takes
// no space at all, and a long sentence wraps like the page's text, the dot on its first line.
export const styles = css`
  :host {
    color: var(--live-visitors-color, inherit);
    font-family: var(--live-visitors-font, inherit);
  }

  .indicator {
    display: inline-block;
    position: relative;
    vertical-align: 0.1em;
    margin-inline-end: var(--live-visitors-gap, 0.5em);
    width: 0.5em;
    height: 0.5em;
    border-radius: 50%;
    background: var(--live-visitors-accent, #e0432b);
  }

  /* A ripple that grows and fades: transform and opacity only, so the compositor runs it. */
  .indicator::after {
    content: '';
    position: absolute;
    inset: 0;
    border-radius: inherit;
    background: inherit;
    animation: pulse 2s ease-out infinite;
  }

  .count {
    font-weight: var(--live-visitors-count-weight, 700);
    color: var(--live-visitors-count-color, inherit);
  }

  @keyframes pulse {
    to {
      transform: scale(2.6);
      opacity: 0;
    }
  }

  @media (prefers-reduced-motion: reduce) {
    .indicator::after {
      animation: none;
    }
  }
`;
