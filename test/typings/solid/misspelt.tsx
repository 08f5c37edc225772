// app.tsx with `intervall` for `interval` and `detail.counts` for `detail.count`: tsc must reject
// both.
import 'live-visitors';

export function VisitorsBadge(props: { onCount: (count: number) => void }) {
  return (
    <live-visitors website-id="shop-42" min={5} intervall={30} on:live-visitors-update={(event) => props.onCount(event.detail.counts)} />
  );
}
