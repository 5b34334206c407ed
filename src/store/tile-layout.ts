import type { DashboardTileRecord, Properties } from "./schema.ts";

/** Tile grid of reorder_tiles: two tiles a row, each 6 wide and 5 high; one a row on small screens. */
const TILE_W = 6;
const TILE_H = 5;

/** Position in the small layout, y then x; a tile without one counts as at 100, 100, as in the real service. */
function layoutKey(tile: DashboardTileRecord): [number, number] {
  const sm = (tile.layouts as { sm?: { x?: unknown; y?: unknown } }).sm;
  const at = (v: unknown) => (typeof v === "number" ? v : 100);
  return [at(sm?.y), at(sm?.x)];
}

/** Dashboard order: top to bottom, then left to right (stable: placing order among equals). */
export const byLayout = (a: DashboardTileRecord, b: DashboardTileRecord) => {
  const [ay, ax] = layoutKey(a);
  const [by, bx] = layoutKey(b);
  return ay - by || ax - bx;
};

/** The layouts reorder_tiles gives the tile at `index`. */
export const gridLayout = (index: number): Properties => ({
  sm: { x: (index % 2) * TILE_W, y: Math.floor(index / 2) * TILE_H, w: TILE_W, h: TILE_H },
  xs: { x: 0, y: index * TILE_H, w: TILE_W, h: TILE_H },
});
