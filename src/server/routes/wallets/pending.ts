/** Wallet routes (18), scope `wallet` — issue F. Typed 503 until the wallets projection lands. */
import { Type } from '@sinclair/typebox';
import { pendingRoute } from '../../pending.js';
import { Address, AmountQuery, pageQuery } from '../../schemas.js';

const page = pageQuery();
const a = { address: Address };
const W = (id: string, suffix: string, summary: string, projection: string, query: object = {}, params: object = a) =>
  pendingRoute({ id: `wallets.${id}`, path: `/wallets/{address}${suffix}`, group: 'Wallets', scope: 'wallet', summary, projection, params: params as never, query: query as never, batchable: true });

export const walletPendingRoutes = [
  W('activity', '/activity', 'Unified feed: parent entries with typed child events (transactions, transfers, swaps).', 'wallets', page),
  W('assets', '/assets', 'Current holdings; sort=token|usd|balance; ranked sorts read at most 500 assets.', 'wallets', {
    ...pageQuery({ maxLimit: 100 }),
    sort: Type.Optional(Type.Union([Type.Literal('token'), Type.Literal('usd'), Type.Literal('balance')])),
  }),
  W('cohorts', '/cohorts', 'Cohorts the wallet belongs to; screened memberships dropped and listed.', 'cohorts', {
    cursor: Type.Optional(Type.String({ maxLength: 1024 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  }),
  W('firstSeen', '/first-seen', 'When the wallet was first observed.', 'wallets'),
  W('fundedBy', '/funded-by', 'Earliest incoming value transfer per asset and its sender.', 'funding', page),
  W('fundedByAll', '/funded-by-all', 'Every funder edge.', 'funding'),
  W('fundedSiblings', '/funded-siblings', 'Wallets sharing a funder.', 'funding'),
  W('funderOf', '/funder-of', 'Everything this wallet funded.', 'funding', page),
  W('overview', '/overview', 'First-paint composite, bounded aggregate.', 'wallets'),
  W('pnl', '/pnl', 'Bounded PnL aggregate with its own scan bounds and completeness.', 'wallets'),
  W('pnlDaily', '/pnl/daily', 'Daily realised series for one (token, quote) pair; day = UTC day index.', 'wallets', {
    token: Address,
    quote: Address,
    from_day: Type.Optional(Type.Integer({ minimum: 0 })),
    to_day: Type.Optional(Type.Integer({ minimum: 0 })),
    ...page,
  }),
  W('pnlToken', '/pnl/{token}', 'PnL detail for one token.', 'wallets', {}, { address: Address, token: Address }),
  W('portfolio', '/portfolio', 'Net worth with coverage and basis split.', 'wallets', {
    predicate: Type.Optional(Type.Union(['all', 'liquid', 'verified_contracts', 'no_privileged_action_observed'].map((p) => Type.Literal(p)))),
  }),
  W('positions', '/positions', 'Per-token weighted-average-cost positions (fixed ordering; sort always refused).', 'wallets', {
    ...page,
    hide_small: Type.Optional(AmountQuery),
    sellout: Type.Optional(Type.Boolean()),
    hide_abnormal: Type.Optional(Type.Boolean()),
    sort: Type.Optional(Type.String({ maxLength: 32 })),
  }),
  W('trades', '/trades', 'Swap history; the wallet is the transaction origin.', 'wallets', page),
  W('transactions', '/transactions', 'Top-level transactions where the wallet is origin or recipient.', 'wallets', page),
  W('transfers', '/transfers', 'Direction-aware transfer history; native rows carry a reserved asset kind.', 'wallets', page),
];
