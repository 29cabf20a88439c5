/** Every area the platform mounts. Each area adds its own line. */
import type { Area } from '../runtime/area.ts';

export const areas: Area[] = [];
