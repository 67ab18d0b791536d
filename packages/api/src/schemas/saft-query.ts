// Query parameters of GET /exports/saft, validated strictly (an unknown parameter is a 400 naming it).
import { z } from 'zod';
import { date } from './fields.ts';

export const saftQuery = z.strictObject({
  from: date().optional().meta({ description: 'First day of the period (inclusive)' }),
  to: date().optional().meta({ description: 'Last day of the period (inclusive)' }),
});
