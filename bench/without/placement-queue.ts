// The bundle without placement: nothing looks at window.liveVisitors.
export function watchPlacementQueue(): void {}
