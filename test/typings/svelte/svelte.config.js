// svelte-check reads the nearest Svelte config; without this one it would try the repository's vite.config.ts.
export default {};
