import { customerPointsDaily } from './customerPointsDaily.js';
import { pointsLedgerDaily } from './pointsLedgerDaily.js';
import { programMetricsDaily } from './programMetricsDaily.js';
import type { ModelDefinition } from './types.js';

export type { BuildContext, ModelColumn, ModelColumnType, ModelDefinition } from './types.js';

/**
 * The model tables in build order: each may read the ones before it (customer_points_daily's rebuild writes each
 * day's customers, ledger_day_customers, which the ledger counts and the metrics read; the metrics read the ledger).
 */
export const MODELS: readonly ModelDefinition[] = [customerPointsDaily, pointsLedgerDaily, programMetricsDaily];

export const MODEL_NAMES = MODELS.map((model) => model.name);
