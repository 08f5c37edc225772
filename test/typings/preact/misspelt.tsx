// app.tsx with `intervall` for `interval`, `detail.counts` for `detail.count`, and the element's own
// `state` set from outside: tsc must reject all three.
import 'live-visitors';

export function VisitorsBadge({ onCount }: { onCount: (count: number) => void }) {
  return (
    <>
      <live-visitors website-id="shop-42" min={5} intervall={30} onlive-visitors-update={(event) => onCount(event.detail.counts)} />
      <live-visitors website-id="shop-42" state="live" />
    </>
  );
}
