/** Prints rows as an aligned plain-text table (numbers right-aligned). */
export function printTable(title: string, rows: Array<Record<string, string | number>>): void {
  const columns = Object.keys(rows[0] ?? {});
  const cells = rows.map((row) => columns.map((column) => String(row[column])));
  const widths = columns.map((column, index) => Math.max(column.length, ...cells.map((cell) => cell[index]!.length)));
  const line = (values: string[]) =>
    values
      .map((value, index) => (/^[\d.,×%+ -]+( KB| B| ms)?$/.test(value) ? value.padStart(widths[index]!) : value.padEnd(widths[index]!)))
      .join('  ');
  console.log(`\n${title}\n`);
  console.log(line(columns));
  console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  for (const row of cells) console.log(line(row));
}

export function ratio(value: number, anchor: number): string {
  return anchor === 0 ? 'n/a' : `${(value / anchor).toFixed(2)}×`;
}

export function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(2)} KB`;
}
