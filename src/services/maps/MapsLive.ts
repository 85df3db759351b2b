import { MapTiles } from "./MapTiles.ts"

/**
 * The maps' one layer: the tiles, from a PMTiles file or through the tile server's proxy with
 * its disk cache. Only the daemon's HTTP app holds it (the tile route, the dashboard's shell,
 * the status): it opens the file and says where the maps come from at start.
 */
export const MapsLive = MapTiles.Default
