import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { snippetParts } from '../../demo/snippet-parts.js';

/** The script URL in the README's snippet, which a shop replaces with its copy's. */
export const README_SCRIPT_URL = 'https://your-cdn.example/live-visitors.js';

export interface Snippet {
  /** The `<script>…</script>` for the page's `<head>` that fetches the element, for the given script URL. */
  script: string;
  /** The `style` the snippet gives the element: the lines kept for the sentence. */
  elementStyle: string;
}

/**
 * The README's quick-start snippet, as shops paste it. The bench's product page and the browser
 * suite use exactly this text (with their own script URL), and the demo's script-tag page is
 * checked against it, so what is measured and tested is what is documented.
 */
export function readmeSnippet(scriptUrl: string): Snippet {
  const readme = readFileSync(fileURLToPath(import.meta.url).replace(/test\/support\/readme-snippet\.ts$/, 'README.md'), 'utf8');
  const block = /## Quick start[\s\S]*?```html\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  const { script, elementStyle } = snippetParts(block);
  if (!script?.includes(README_SCRIPT_URL) || !elementStyle) {
    throw new Error(
      `README.md: the quick start's snippet is not where it was (a <script> adding ${README_SCRIPT_URL}, and an element with a style)`,
    );
  }
  return { script: script.replace(README_SCRIPT_URL, scriptUrl), elementStyle };
}

/** Markup with every run of whitespace made one space: the same snippet, indented differently. */
export const collapseWhitespace = (html: string) => html.replace(/\s+/g, ' ').trim();
