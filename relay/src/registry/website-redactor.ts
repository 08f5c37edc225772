import { Redactor } from '../redaction.js';

/**
 * A registered website's redactor: the relay's own secrets first (one shared pattern), then this
 * website's token, whose pattern is built on first use only. A redactor per website holding every
 * secret of the relay would cost each website the whole pattern again (about 19 KB once compiled).
 */
export class WebsiteRedactor extends Redactor {
  readonly #shared: Redactor;
  readonly #token: string;
  #own: Redactor | undefined;

  constructor(shared: Redactor, token: string) {
    super([]);
    this.#shared = shared;
    this.#token = token;
  }

  override clean(text: string): string {
    this.#own ??= new Redactor([this.#token]);
    return this.#own.clean(this.#shared.clean(text));
  }
}
