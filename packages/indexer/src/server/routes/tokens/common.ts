/** Shared by the token routes: the projection they read and the PAGE parameters' route tags. */

import { HOLDERS_BALANCE_TAG } from '../../../schema/cursors.js';

/** The projection behind the token registry, balance, holder and launch routes. */
export const TOKENS = 'tokens';

/** Route tag shared by the balance-ordered holder cursors (/holders?sort=balance and /top-holders). */
export const BALANCE_WALK = HOLDERS_BALANCE_TAG;
