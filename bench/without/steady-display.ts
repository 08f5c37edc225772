// The bundle without the steady-display rule: `min` applied to each count as it comes.
export class SteadyDisplay {
  shows(count: number | null, min: number): boolean {
    return count !== null && count >= min;
  }
}
