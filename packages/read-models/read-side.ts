import type { ObjectHistory } from './object-events.js';
import type { Projection } from './projection.js';

/**
 * A family's read side, as its `packages/families/<family>/read/index.ts` declares it: the read models it
 * keeps and the objects whose history read.object_events keeps for it. The family's manifest
 * declares it (`readSide`); the registry assembles the read models from the family list.
 */
export interface ReadSide {
  family: string;
  /** Its read models; one added later is migrated in this order (the registry keeps the order frozen at assembly for the others). */
  readModels: readonly Projection[];
  histories?: readonly ObjectHistory[];
}
