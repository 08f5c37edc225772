/**
 * The "Put it on your shop" tabs, one per way a shop installs the count, in the WAI-ARIA tabs
 * pattern: one tab stop for the list, arrow keys (and Home, End) move between tabs and show each
 * at once, since every panel is already in the page.
 */
const tablist = document.querySelector<HTMLElement>('.install-tabs')!;
const tabs = [...tablist.querySelectorAll<HTMLButtonElement>('[role="tab"]')];

function select(chosen: HTMLButtonElement, { focus }: { focus: boolean }): void {
  for (const tab of tabs) {
    const selected = tab === chosen;
    tab.setAttribute('aria-selected', String(selected));
    tab.tabIndex = selected ? 0 : -1;
    document.getElementById(tab.getAttribute('aria-controls')!)!.hidden = !selected;
  }
  if (focus) chosen.focus();
}

/** Where each key moves from tab `index`, wrapping around; undefined for keys the tabs leave alone. */
function target(key: string, index: number): number | undefined {
  const last = tabs.length - 1;
  const moves: Record<string, number> = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: last };
  const next = moves[key];
  return next === undefined ? undefined : (next + tabs.length) % tabs.length;
}

for (const tab of tabs) tab.addEventListener('click', () => select(tab, { focus: false }));
tablist.addEventListener('keydown', (event) => {
  const next = target(event.key, tabs.indexOf(event.target as HTMLButtonElement));
  if (next === undefined) return;
  event.preventDefault();
  select(tabs[next]!, { focus: true });
});

// What the Tag Manager tab tells the marketer to paste: the demo relay's address, as its page says it.
document.getElementById('tag-relay-address')!.textContent = new URL('./relay', location.href).href;
