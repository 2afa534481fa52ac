// The API's record schemas by resource name, as the build checks records with them.

import type { z } from 'zod';
import { validatorOf } from '../../../scripts/builder/pipeline/validators.ts';
import { RESOURCES } from '../../../scripts/contract/resources/index.ts';
import type { ResourceName } from '../../../scripts/contract/routes.ts';

export const SCHEMAS = Object.fromEntries(
  RESOURCES.map((resource) => [resource.name, validatorOf(resource)]),
) as Record<ResourceName, z.ZodType>;
