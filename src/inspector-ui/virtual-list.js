// A list that draws only the rows in sight: 10,000 entries cost the DOM what a screenful does.

/**
 * `createVirtualList(container, { rowHeight, render })`, then `list.set(items)`. Rows are absolutely placed in a
 * spacer as tall as every row together; a scroll redraws the visible window (plus a margin) on the next frame.
 */
export function createVirtualList(container, { rowHeight, render, margin = 8 }) {
  const spacer = document.createElement("div");
  spacer.className = "vlist-spacer";
  container.classList.add("vlist");
  container.append(spacer);
  let items = [];
  let frame = 0;
  const draw = () => {
    frame = 0;
    const first = Math.max(0, Math.floor(container.scrollTop / rowHeight) - margin);
    const last = Math.min(items.length, Math.ceil((container.scrollTop + container.clientHeight) / rowHeight) + margin);
    const rows = [];
    for (let i = first; i < last; i++) {
      const row = render(items[i], i);
      row.style.transform = `translateY(${i * rowHeight}px)`;
      row.classList.add("vrow");
      rows.push(row);
    }
    spacer.replaceChildren(...rows);
  };
  const schedule = () => (frame ||= requestAnimationFrame(draw));
  container.addEventListener("scroll", schedule, { passive: true });
  new ResizeObserver(schedule).observe(container);
  return {
    set(next) {
      items = next;
      spacer.style.height = `${items.length * rowHeight}px`;
      draw();
    },
    get items() {
      return items;
    },
  };
}
