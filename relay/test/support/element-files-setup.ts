import { writeBundledElement } from '../../src/element-files/write-bundled-element.js';

/**
 * Once per run, after the bundle's own global setup: the element's files written into the relay,
 * as the relay's build does, so the relays under test serve them and their owner page hands out the
 * snippet (a fresh checkout has only the module written at install, which holds no files).
 */
export default async function setup(): Promise<void> {
  await writeBundledElement();
}
