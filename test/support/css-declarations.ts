/**
 * A `style` attribute as CSS reads it: the spaces around `:` and `;` are no part of a declaration,
 * so `display: block; min-height: 2lh` (the README's, written for people) and
 * `display:block;min-height:2lh` (rules.json's `reservedLinesStyle`) are one style.
 */
export const cssDeclarations = (style: string) => style.replace(/\s*([:;])\s*/g, '$1').trim();
