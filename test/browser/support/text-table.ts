/** A plain-text table (no colours), so a run's log reads the same in a terminal and in CI. */
export function textTable(title: string, rows: ReadonlyArray<Record<string, string | number>>): string {
  const first = rows[0];
  if (!first) return `${title}\n(no rows)`;
  const columns = Object.keys(first);
  const cells = [columns, ...rows.map((row) => columns.map((column) => String(row[column] ?? '')))];
  const widths = columns.map((_, index) => Math.max(...cells.map((line) => line[index]!.length)));
  const line = (values: string[]) => `| ${values.map((value, index) => value.padEnd(widths[index]!)).join(' | ')} |`;
  const rule = `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`;
  return [title, line(cells[0]!), rule, ...cells.slice(1).map(line)].join('\n');
}
