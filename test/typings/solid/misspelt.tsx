// app.tsx with `intervall` for `interval`, `detail.counts` for `detail.count`, and the element's own
// `state` set from outside: tsc must reject all three.
import 'live-visitors';

export function VisitorsBadge(props: { onCount: (count: number) => void }) {
  return (
    <>
      <live-visitors website-id="shop-42" min={5} intervall={30} on:live-visitors-update={(event) => props.onCount(event.detail.counts)} />
      <live-visitors website-id="shop-42" state="live" />
    </>
  );
}
