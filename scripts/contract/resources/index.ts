// The API's resources, in the order the route table, the documents and the reference list them.

import { company } from './company.ts';
import { event } from './event.ts';
import type { Resource } from './resource.ts';
import { virtualboothTexture } from './virtualbooth-texture.ts';
import { virtualfair } from './virtualfair.ts';

export { company, event, virtualboothTexture, virtualfair };

const API = [company, virtualfair, event, virtualboothTexture] as const;

/** The API's declarations, each with its own record type. */
export type ApiDeclarations = typeof API;

/** The name of one of the API's resources. */
export type ApiResourceName = (typeof API)[number]['name'];

/** The API's resources, each with its name. */
export const RESOURCES: ReadonlyArray<Resource & { name: ApiResourceName }> = API;
