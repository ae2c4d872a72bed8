/**
 * Dashboard endpoints for keys (a dashboard session, never a key): list, create, rename, set the
 * allowlist, roll, revoke, revoke-all. Secrets appear only in the create and roll answers, once.
 * Keys stay viewable and revocable whatever the plan's state.
 */
import { Type } from '@sinclair/typebox';
import { defineEndpoint } from '../endpoint.js';
import { AllowlistInput, KeyIdParam, KeyViewSchema, SecretSchema } from './schemas.js';

const KeyName = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'a label, 1..64 printable characters',
});
const OneKey = Type.Object({ key: KeyViewSchema });

export const listKeys = defineEndpoint({
  id: 'account.keys.list',
  method: 'GET',
  path: '/v1/account/keys',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'Every key of the account (active, in grace, revoked), oldest first; never a secret',
  response: Type.Object({ keys: Type.Array(KeyViewSchema) }),
  handler: ({ caller, services }) => ({
    keys: services.directory.keysOf(caller.account.id).map((k) => services.accounts.view(k)),
  }),
});

export const createKey = defineEndpoint({
  id: 'account.keys.create',
  method: 'POST',
  path: '/v1/account/keys',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'Creates a key (at most 5 active); the secret is in this answer only; e-mails the account',
  body: Type.Object(
    { name: KeyName, allowlist: Type.Optional(AllowlistInput) },
    { additionalProperties: false },
  ),
  status: 201,
  response: Type.Object({ key: KeyViewSchema, secret: SecretSchema }),
  errors: ['API_KEY_LIMIT_REACHED'],
  handler: ({ caller, body, ip, services }) => {
    const { key, secret } = services.accounts.createKey(caller.account.id, body, { ip });
    return { key: services.accounts.view(key), secret };
  },
});

export const renameKey = defineEndpoint({
  id: 'account.keys.rename',
  method: 'PATCH',
  path: '/v1/account/keys/{keyId}',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'Renames a key (recorded in the activity list; no e-mail)',
  params: { keyId: KeyIdParam },
  body: Type.Object({ name: KeyName }, { additionalProperties: false }),
  response: OneKey,
  errors: ['NOT_FOUND'],
  handler: ({ caller, params, body, ip, services }) => ({
    key: services.accounts.view(
      services.accounts.renameKey(caller.account.id, params.keyId, body.name, { ip }),
    ),
  }),
});

export const setAllowlist = defineEndpoint({
  id: 'account.keys.allowlist',
  method: 'PUT',
  path: '/v1/account/keys/{keyId}/allowlist',
  auth: 'session',
  tag: 'Dashboard',
  summary:
    "Replaces a key's IP allowlist (normalised; empty = any IP; recorded in the activity list; no e-mail)",
  params: { keyId: KeyIdParam },
  body: Type.Object({ allowlist: AllowlistInput }, { additionalProperties: false }),
  response: OneKey,
  errors: ['NOT_FOUND'],
  handler: ({ caller, params, body, ip, services }) => ({
    key: services.accounts.view(
      services.accounts.setAllowlist(caller.account.id, params.keyId, body.allowlist, { ip }),
    ),
  }),
});

export const rollKey = defineEndpoint({
  id: 'account.keys.roll',
  method: 'POST',
  path: '/v1/account/keys/{keyId}/roll',
  auth: 'session',
  tag: 'Dashboard',
  summary:
    'Rolls a key: a new secret with the same name and allowlist; the old one works 24 h more, or stops at once with revokeOld; e-mails the account',
  params: { keyId: KeyIdParam },
  body: Type.Object(
    {
      revokeOld: Type.Optional(
        Type.Boolean({
          default: false,
          description: 'true: the old secret stops at once; false: it works 24 h more',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  status: 201,
  response: Type.Object({ key: KeyViewSchema, secret: SecretSchema, old: KeyViewSchema }),
  errors: ['NOT_FOUND'],
  handler: ({ caller, params, body, ip, services }) => {
    const r = services.accounts.rollKey(
      caller.account.id,
      params.keyId,
      { revokeOld: body.revokeOld ?? false },
      { ip },
    );
    return { key: services.accounts.view(r.key), secret: r.secret, old: services.accounts.view(r.old) };
  },
});

export const revokeKey = defineEndpoint({
  id: 'account.keys.revoke',
  method: 'POST',
  path: '/v1/account/keys/{keyId}/revoke',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'Revokes one key at once (a key in its roll grace too); e-mails the account',
  params: { keyId: KeyIdParam },
  response: OneKey,
  errors: ['NOT_FOUND'],
  handler: ({ caller, params, ip, services }) => ({
    key: services.accounts.view(services.accounts.revokeKey(caller.account.id, params.keyId, { ip })),
  }),
});

export const revokeAllKeys = defineEndpoint({
  id: 'account.keys.revokeAll',
  method: 'POST',
  path: '/v1/account/keys/revoke-all',
  auth: 'session',
  tag: 'Dashboard',
  summary: 'Revokes every key of the account at once (active and in grace); e-mails the account',
  response: Type.Object({ revoked: Type.Array(KeyViewSchema) }),
  handler: ({ caller, ip, services }) => ({
    revoked: services.accounts.revokeAll(caller.account.id, { ip }).map((k) => services.accounts.view(k)),
  }),
});
