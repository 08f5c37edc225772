import { type PropertyDeclarations, type PropertyValues, ReactiveElement } from '@lit/reactive-element';
import type { About } from './about.js';
import { ATTRIBUTES, type AttributeValues } from './attributes.js';
import { windowOf } from './contract/report.js';
import { disclosureFile } from './disclosure-on-demand.js';
import { currentVariant, decidedVariant, type UNDECIDED, watchImpressions } from './experiments-on-demand.js';
import type { Variant } from './holdout.js';
import { styles } from './live-visitors.styles.js';
import { builtInTexts } from './locales/catalog.js';
import { formatMessage, resolveLocale } from './messages.js';
import { VisitorsController } from './visitors-controller.js';
import { WidgetDom } from './widget-dom.js';

/**
 * The element's own `lang`, else the nearest ancestor's, across the shadow roots of other
 * components too, up to the document's `<html lang>`.
 */
function localeOf(element: Element): string {
  let lang = '';
  for (let node: Element | null = element; !lang && node; node = (node.getRootNode() as ShadowRoot).host ?? null) {
    lang = node.closest('[lang]')?.getAttribute('lang') ?? '';
  }
  return resolveLocale(lang);
}

/**
 * The element's own `lang` attribute, observed so that a change re-renders the sentence. A symbol,
 * not a name: `lang` stays the native attribute and property (it reflects, and assistive
 * technology reads it), and the element gains no public property for it.
 */
const OWN_LANG = Symbol();

// The attribute properties and their types come from their table (src/attributes.ts): the class declares none.
export interface LiveVisitors extends AttributeValues {}

/**
 * @summary Shows a website's real live visitor count as urgency text, e.g. "23 people are browsing this shop right now".
 *
 * @slot fallback - Shown whenever no count is shown (loading without a cached count, below `min`, unavailable). Empty by default: the element then takes no space.
 *
 * @csspart base - The wrapper of the indicator and the text (inline, so a long sentence wraps like the page's text).
 * @csspart indicator - The decorative pulsing "live" dot (hidden from assistive technology).
 * @csspart text - The sentence.
 * @csspart count - The formatted number inside the sentence (class `changed` while a new number is highlighted).
 * @csspart disclosure - The explanation of the number, shown on hover, focus or tap.
 *
 * @cssproperty --live-visitors-color - Text colour (default: inherited).
 * @cssproperty --live-visitors-accent - Colour of the live dot (default: #e0432b).
 * @cssproperty --live-visitors-font - Font family (default: inherited).
 * @cssproperty --live-visitors-gap - Space between the dot and the text (default: 0.5em).
 * @cssproperty --live-visitors-count-color - Colour of the number (default: inherited).
 * @cssproperty --live-visitors-count-weight - Font weight of the number (default: 700).
 * @cssproperty --live-visitors-highlight - Background that fades from a new number (default: #ffe58a).
 *
 * @fires live-visitors-update - A new good report: `detail` is `{ count, websiteId, timestamp, windowMinutes }`.
 * @fires live-visitors-error - A request or the configuration failed: `detail` is `{ kind, status, message }`.
 * @fires live-visitors-impression - At most once per page view: the element was at least half visible for one second with a count shown (or held back by the holdout): `detail` is `{ count, websiteId, variant, windowMinutes }`.
 */
// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface only adds the table's property types, which Lit's accessors implement.
export class LiveVisitors extends ReactiveElement {
  static override styles = styles;

  // The attributes' options come from their table (src/attributes.ts), with the native `lang`, observed. Each row
  // is Lit's options and a `value`, which TypeScript cannot see as options when a row has no option but its value.
  static override properties: PropertyDeclarations = { ...(ATTRIBUTES as PropertyDeclarations), [OWN_LANG]: { attribute: 'lang' } };

  readonly #visitors = new VisitorsController(this);
  /** Made at the first update: the shadow root exists only once the element is connected. */
  #dom: WidgetDom | null = null;
  /** It shows a count, or would if it were not held out: what an impression needs. */
  #showsCount = false;

  constructor() {
    super();
    for (const [name, { value }] of Object.entries(ATTRIBUTES)) (this as Record<string, unknown>)[name] = value;
  }

  /** The current count (also when below `min`), or null when none is young enough to show. */
  get count(): number | null {
    return this.#visitors.view.report?.currentVisitors ?? null;
  }

  /** The minutes the current count covers (the contract's 3, unless the relay's source counts another window), or null. */
  get windowMinutes(): number | null {
    const { report } = this.#visitors.view;
    return report ? windowOf(report) : null;
  }

  /** When the service collected the current count, or null. */
  get updatedAt(): Date | null {
    const { report } = this.#visitors.view;
    return report ? new Date(report.timestamp) : null;
  }

  /**
   * `holdout` when this browser is in the control group for this website (it then shows the
   * fallback), else `shown`. With a `holdout`, `undecided` for the moment its file loads (nothing
   * shows meanwhile): `decidedVariant` waits for the decision.
   */
  get variant(): Variant | typeof UNDECIDED {
    return currentVariant(this);
  }

  /** Resolves with `variant` once it is `shown` or `holdout`: at once without a holdout, else once the holdout's file is in. */
  get decidedVariant(): Promise<Variant> {
    return decidedVariant(this);
  }

  /**
   * Asks the service now (shared with every element of the same website), also after a
   * configuration error. Waits for attributes just set to take effect first.
   */
  async refresh(): Promise<void> {
    await this.updateComplete;
    this.#visitors.refresh();
  }

  // Once the page has loaded, no paint waits for a render: each render waits for a task of its own,
  // where the browser can yield, so neither the start nor a new count is one long task. Before
  // that, nothing waits: a stored count belongs in the first frame.
  protected override async scheduleUpdate(): Promise<void> {
    if (document.readyState === 'complete') await (globalThis as { scheduler?: { yield?(): Promise<void> } }).scheduler?.yield?.();
    super.scheduleUpdate();
  }

  /** The controller has computed this update's view (its `hostUpdate` runs just before). */
  protected override update(changed: PropertyValues): void {
    const { state, report, shown } = this.#visitors.view;
    // Set before super.update(), so it is reflected in this update without asking for another.
    this.state = state;
    super.update(changed);
    this.#dom ??= new WidgetDom(this.renderRoot as ShadowRoot);
    const locale = localeOf(this);
    // A language of its own file shows nothing until the file is in, then updates.
    const builtIn = shown ? builtInTexts(locale, () => this.requestUpdate()) : null;
    // With a holdout, its file loads at the first update, so `variant` is known before any count.
    const variant = currentVariant(this);
    this.#showsCount = !!builtIn;
    if (builtIn) watchImpressions(this, () => this.#showsCount);
    // `shown` holds only with a report; checked, so no update ever leans on that.
    if (!report || !builtIn || variant !== 'shown') {
      this.#dom.show(null, null, undefined);
      return;
    }
    const { notation, disclosureText } = this;
    const sentence = formatMessage(
      report.currentVisitors,
      locale,
      { other: this.text, one: this.textOne, two: this.textTwo, few: this.textFew, many: this.textMany },
      builtIn,
      notation === 'compact' ? notation : undefined,
    );
    const about: About | null =
      this.disclosure === 'off'
        ? null
        : {
            template: disclosureText || builtIn.texts.about,
            builtIn: !disclosureText,
            timestamp: report.timestamp,
            windowMinutes: windowOf(report),
            lang: disclosureText ? locale : builtIn.lang,
          };
    this.#dom.show(sentence, about, about ? disclosureFile.get(this) : undefined);
  }
}
