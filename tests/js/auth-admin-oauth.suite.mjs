// supabase.auth.admin.oauth.*, unmodified, against /auth/v1/admin/oauth/clients on a server with
// GOTRUE_OAUTH_SERVER_ENABLED=true (started by tests/auth/test_oauth_clients.py).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { client, serviceClient } from './support.mjs';

test('createClient shows the secret once; getClient, listClients, updateClient', async () => {
  const { oauth } = serviceClient().auth.admin;
  const { data: created, error } = await oauth.createClient({
    client_name: 'JS app',
    redirect_uris: ['https://js.example.com/callback'],
    client_uri: 'https://js.example.com',
  });
  assert.equal(error, null);
  assert.equal(created.client_type, 'confidential');
  assert.equal(created.token_endpoint_auth_method, 'client_secret_basic');
  assert.deepEqual(created.grant_types, ['authorization_code', 'refresh_token']);
  assert.deepEqual(created.response_types, ['code']);
  assert.equal(created.registration_type, 'manual');
  assert.ok(created.client_secret.length >= 43);

  const { data: fetched, error: getError } = await oauth.getClient(created.client_id);
  assert.equal(getError, null);
  assert.equal(fetched.client_secret, undefined);
  assert.equal(fetched.client_name, 'JS app');

  const { data: listed, error: listError } = await oauth.listClients();
  assert.equal(listError, null);
  assert.ok(listed.clients.some((c) => c.client_id === created.client_id));

  const { data: paged, error: pageError } = await oauth.listClients({ page: 1, perPage: 1 });
  assert.equal(pageError, null);
  assert.equal(paged.clients.length, 1);
  assert.ok(paged.total >= 1);

  const { data: updated, error: updateError } = await oauth.updateClient(created.client_id, {
    client_name: 'JS app 2',
    redirect_uris: ['http://localhost:5173/callback'],
  });
  assert.equal(updateError, null);
  assert.equal(updated.client_name, 'JS app 2');
  assert.deepEqual(updated.redirect_uris, ['http://localhost:5173/callback']);
});

test('regenerateClientSecret, deleteClient, then the client is gone', async () => {
  const { oauth } = serviceClient().auth.admin;
  const { data: created } = await oauth.createClient({ client_name: 'gone', redirect_uris: ['myapp://cb'] });
  const { data: regenerated, error } = await oauth.regenerateClientSecret(created.client_id);
  assert.equal(error, null);
  assert.notEqual(regenerated.client_secret, created.client_secret);
  const { error: deleteError } = await oauth.deleteClient(created.client_id);
  assert.equal(deleteError, null);
  const { data, error: getError } = await oauth.getClient(created.client_id);
  assert.equal(data, null);
  assert.equal(getError.status, 404);
  assert.equal(getError.code, 'oauth_client_not_found');
});

test('public clients have no secret to regenerate; validation errors as GoTrue words them', async () => {
  const { oauth } = serviceClient().auth.admin;
  const { data: pub } = await oauth.createClient({
    client_name: 'spa', redirect_uris: ['https://spa.example.com/cb'], token_endpoint_auth_method: 'none',
  });
  assert.equal(pub.client_type, 'public');
  assert.equal(pub.client_secret, undefined);
  const { error } = await oauth.regenerateClientSecret(pub.client_id);
  assert.equal(error.status, 400);
  assert.equal(error.message, 'Cannot regenerate secret for public client');
  const { error: bad } = await oauth.createClient({ client_name: 'bad', redirect_uris: ['http://evil.example.com/cb'] });
  assert.equal(bad.code, 'validation_failed');
  assert.equal(bad.message, "400: invalid redirect_uri 'http://evil.example.com/cb': HTTP scheme only allowed for localhost");
});

test('a user token cannot administer clients', async () => {
  const { error } = await client().auth.admin.oauth.listClients();
  assert.equal(error.status, 403);
  assert.equal(error.code, 'not_admin');
});
