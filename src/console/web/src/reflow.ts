/**
 * Tables reflow on a phone (app.css, below 600 px): each row becomes a card and each cell shows its column's name
 * before its value, from the cell's `data-label`. This keeps the labels of every table under `root` in step with its
 * header row, after each change of the page (at most once a frame). Cells spanning several columns get none.
 */
export function labelTableCells(root: HTMLElement): void {
  let queued = false;
  const label = () => {
    queued = false;
    for (const table of root.querySelectorAll('table')) {
      const names = Array.from(table.querySelectorAll('thead th'), (th) => th.textContent?.trim() ?? '');
      for (const row of table.querySelectorAll('tbody tr')) {
        let column = 0;
        for (const cell of Array.from(row.children) as HTMLTableCellElement[]) {
          const name = cell.colSpan > 1 ? undefined : names[column];
          if (name) {
            if (cell.getAttribute('data-label') !== name) cell.setAttribute('data-label', name);
          } else cell.removeAttribute('data-label');
          column += cell.colSpan;
        }
      }
    }
  };
  // Only the tree is watched (not attributes), so labelling does not wake the observer again.
  new MutationObserver(() => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(label);
  }).observe(root, { childList: true, subtree: true, characterData: true });
  label();
}
