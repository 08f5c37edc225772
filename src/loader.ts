// dist/live-visitors-loader.js, a classic script: Tag Manager's injectScript and the code-injection
// fields of site builders add classic scripts, and the element's file is a module. It adds that
// module from its own folder (with its own query, a CDN's version stamp), then is done.
(() => {
  const loader = document.currentScript as HTMLScriptElement | null;
  if (!loader?.src) {
    console.warn('<live-visitors> live-visitors-loader.js is a classic script with a src: load live-visitors.js as a module instead.');
    return;
  }
  const script = document.createElement('script');
  script.type = 'module';
  const url = new URL('live-visitors.js', loader.src);
  url.search = new URL(loader.src).search;
  script.src = url.href;
  document.head.append(script);
})();
