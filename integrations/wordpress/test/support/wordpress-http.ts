import { type Answer, toAnswer } from '../../../../test/support/network.js';
import type { WordPressSite } from './wordpress-site.js';

export interface WordPressUser {
  readonly login: string;
  readonly password: string;
}

/** A logged-in browser's cookies, as one `Cookie` header. */
export async function logIn(site: WordPressSite, user: WordPressUser): Promise<string> {
  const response = await fetch(`${site.url}/wp-login.php`, {
    method: 'POST',
    redirect: 'manual',
    headers: { Cookie: 'wordpress_test_cookie=WP%20Cookie%20check' },
    body: new URLSearchParams({
      log: user.login,
      pwd: user.password,
      'wp-submit': 'Log In',
      redirect_to: `${site.url}/wp-admin/`,
      testcookie: '1',
    }),
  });
  if (response.status !== 302) {
    throw new Error(
      `${user.login} could not log in: ${response.status}\n${pageText(await response.text())}\n` +
        `debug log tail:\n${site.readDebugLog().slice(-2_000) || '(empty)'}`,
    );
  }
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

/** A page's words without its markup, shortened: enough to read a PHP error or WordPress's die message. */
function pageText(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 1_000);
}

export async function get(site: WordPressSite, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return toAnswer(await fetch(`${site.url}${path}`, { headers, redirect: 'manual' }));
}

export const SETTINGS_PAGE = '/wp-admin/options-general.php?page=live-visitors';

/**
 * Submits the settings form as a browser does: the nonce from the page, options.php, then the
 * page it redirects to (where the notices are).
 */
export async function saveSettings(
  site: WordPressSite,
  cookie: string,
  fields: Record<string, string>,
): Promise<{ post: Answer; page: Answer }> {
  const form = await get(site, SETTINGS_PAGE, { Cookie: cookie });
  const nonce = /name="_wpnonce" value="([^"]+)"/.exec(form.text)?.[1];
  if (!nonce) throw new Error(`no nonce on the settings page (status ${form.status})`);
  const body = new URLSearchParams({ option_page: 'live_visitors', action: 'update', _wpnonce: nonce, _wp_http_referer: SETTINGS_PAGE });
  for (const [name, value] of Object.entries(fields)) body.set(`live_visitors_settings[${name}]`, value);
  const post = await toAnswer(
    await fetch(`${site.url}/wp-admin/options.php`, { method: 'POST', redirect: 'manual', headers: { Cookie: cookie }, body }),
  );
  const location = post.headers.get('location');
  const page = location
    ? await get(site, new URL(location, site.url).pathname + new URL(location, site.url).search, { Cookie: cookie })
    : post;
  return { post, page };
}
