// A React 19 app using <live-visitors> as the README shows: its tsconfig.json enables the typings with
// "types": ["live-visitors/react"]. tsc must accept it.
import 'live-visitors';

export function VisitorsBadge({ onCount }: { onCount: (count: number) => void }) {
  return <live-visitors website-id="shop-42" min={5} interval={30} onlive-visitors-update={(event) => onCount(event.detail.count)} />;
}
