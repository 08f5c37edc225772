/** The two parts of the README's snippet, as they stand in a page or in the README's code block. */
export interface SnippetParts {
  /** The `<script>…</script>` for the page's `<head>` that fetches the element. */
  script: string | undefined;
  /** The `style` the element is given: the lines kept for the sentence. */
  elementStyle: string | undefined;
}

/**
 * Finds the snippet's parts in `html`: its first inline `<script>` and the `<live-visitors>` style.
 * One reading for the demo's copy buttons (from the script-tag page) and the tests (from the README).
 */
export function snippetParts(html: string): SnippetParts {
  return {
    script: /<script>[\s\S]*?<\/script>/.exec(html)?.[0],
    elementStyle: /<live-visitors[^>]*style="([^"]*)"/.exec(html)?.[1],
  };
}
