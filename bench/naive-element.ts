/**
 * The design live-visitors is measured against: what a quick widget does. Each element fetches
 * on connect and then on its own setInterval; no sharing, no cache, no visibility check.
 */
export class NaiveVisitors extends HTMLElement {
  #timer: ReturnType<typeof setInterval> | undefined;

  connectedCallback(): void {
    const url = `${this.getAttribute('api-base')}/api/v1/realtime?websiteId=${this.getAttribute('website-id')}`;
    const poll = () =>
      fetch(url, { headers: { Authorization: `Bearer ${this.getAttribute('token')}` } })
        .then((response) => response.json())
        .then((report: { currentVisitors: number }) => (this.textContent = `${report.currentVisitors} people`))
        .catch(() => {});
    void poll();
    this.#timer = setInterval(poll, 60_000);
  }

  disconnectedCallback(): void {
    clearInterval(this.#timer);
  }
}
