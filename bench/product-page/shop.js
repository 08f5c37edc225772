// The shop's own scripts on the bench's product page: a photo gallery, a cart counter and an
// analytics queue, about as much code as a small shop theme runs. Nothing here is the widget's.
(() => {
  const hero = document.getElementById('hero');
  const thumbs = [...document.querySelectorAll('.thumbs button')];
  const photos = ['/hero.jpg', '/hero.jpg?angle=2', '/hero.jpg?angle=3'];
  const captions = ['The bag on a wooden table', 'The beans up close', 'A cup of espresso'];

  function showPhoto(index) {
    for (const [position, thumb] of thumbs.entries()) thumb.setAttribute('aria-pressed', String(position === index));
    hero.alt = captions[index];
    hero.dataset.src = photos[index];
  }
  for (const [index, thumb] of thumbs.entries()) thumb.addEventListener('click', () => showPhoto(index));

  const cartCount = document.getElementById('cart-count');
  function readCart() {
    try {
      return JSON.parse(localStorage.getItem('shop-cart') || '[]');
    } catch {
      return [];
    }
  }
  function writeCart(items) {
    try {
      localStorage.setItem('shop-cart', JSON.stringify(items));
    } catch {}
    cartCount.textContent = String(items.reduce((sum, item) => sum + item.quantity, 0));
  }
  document.getElementById('add').addEventListener('click', () => {
    const items = readCart();
    const line = items.find((item) => item.sku === 'nordic-roast-1kg');
    if (line) line.quantity += 1;
    else items.push({ sku: 'nordic-roast-1kg', quantity: 1, price: 1743 });
    writeCart(items);
    track('add_to_cart', { sku: 'nordic-roast-1kg', value: 17.43 });
  });
  writeCart(readCart());

  // An analytics queue that batches events and sends them when the page is hidden.
  const queue = [];
  function track(name, properties) {
    queue.push({ name, properties, at: Date.now(), path: location.pathname });
  }
  function flush() {
    if (queue.length === 0) return;
    const body = JSON.stringify(queue.splice(0));
    if (navigator.sendBeacon) navigator.sendBeacon('/collect', body);
  }
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') flush();
  });
  track('page_view', { title: document.title, referrer: document.referrer });

  // Recently viewed products, kept for the "you looked at" strip on other pages.
  try {
    const recent = JSON.parse(localStorage.getItem('shop-recent') || '[]').filter((sku) => sku !== 'nordic-roast-1kg');
    recent.unshift('nordic-roast-1kg');
    localStorage.setItem('shop-recent', JSON.stringify(recent.slice(0, 8)));
  } catch {}

  // Scroll depth, reported once per quarter of the page.
  const reported = new Set();
  addEventListener(
    'scroll',
    () => {
      const depth = Math.floor(((scrollY + innerHeight) / document.documentElement.scrollHeight) * 4);
      if (!reported.has(depth)) {
        reported.add(depth);
        track('scroll_depth', { quarter: depth });
      }
    },
    { passive: true },
  );
})();
