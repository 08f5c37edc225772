import { createHash, timingSafeEqual } from 'node:crypto';
import type { EmulatorConfig, WebsiteConfig } from './config.js';

interface KnownWebsite {
  readonly website: WebsiteConfig;
  readonly tokenDigest: Buffer;
}

/** The configured websites, found by id or — in constant time — by token. */
export class WebsiteDirectory {
  readonly #byId = new Map<string, KnownWebsite>();

  constructor(config: EmulatorConfig) {
    for (const website of config.websites) {
      this.#byId.set(website.id, { website, tokenDigest: digest(website.token) });
    }
  }

  findById(websiteId: string): WebsiteConfig | undefined {
    return this.#byId.get(websiteId)?.website;
  }

  /**
   * Compares SHA-256 digests (equal lengths, as `timingSafeEqual` needs) against
   * every website without stopping at a match, so response time tells an attacker
   * nothing about how much of a token was right, nor which entry matched.
   */
  findByToken(token: string): WebsiteConfig | undefined {
    const candidate = digest(token);
    let owner: WebsiteConfig | undefined;
    for (const known of this.#byId.values()) {
      if (timingSafeEqual(candidate, known.tokenDigest)) owner = known.website;
    }
    return owner;
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
