// Vite's `?raw` imports, for the demo: a file's text as a string.
declare module '*?raw' {
  const text: string;
  export default text;
}
