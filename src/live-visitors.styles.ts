import { css } from '@lit/reactive-element';

export const styles = css`
  :host {
    /* Inline, so an element with nothing to show takes no space at all. */
    display: inline;
    color: var(--live-visitors-color, inherit);
    font-family: var(--live-visitors-font, inherit);
  }

  :host([hidden]) {
    display: none;
  }

  /* Inline layout: a long sentence wraps like the page's text, with the dot on its first line. */
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
    from {
      transform: scale(1);
      opacity: 0.6;
    }
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
