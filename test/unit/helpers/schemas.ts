// The API's record schemas by resource name, as the build checks records with them.

import type { z } from 'zod';
import { schemaOf } from '../../../scripts/builder/pipeline/schemas.ts';
import { RESOURCES } from '../../../scripts/contract/resources/index.ts';
import type { ResourceName } from '../../../scripts/contract/routes.ts';

export const SCHEMAS = Object.fromEntries(RESOURCES.map((resource) => [resource.name, schemaOf(resource)])) as Record<
  ResourceName,
  z.ZodType
>;
