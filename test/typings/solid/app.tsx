// A Solid app using <live-visitors> as the README shows: its tsconfig.json enables the typings with
// "types": ["live-visitors/solid"]. tsc must accept it.
import 'live-visitors';

export function VisitorsBadge(props: { onCount: (count: number) => void }) {
  return (
    <live-visitors website-id="shop-42" min={5} interval={30} on:live-visitors-update={(event) => props.onCount(event.detail.count)} />
  );
}
