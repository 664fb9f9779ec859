// A real OpenID provider (panva's oidc-provider, pinned in package.json)
// for test/mcp_oidc_provider_tests.erl, configured as an MCP server's
// authorization server: resource indicators (RFC 8707) with JWT access
// tokens (RFC 9068) whose audience is the resource asked for, the client
// credentials grant, dynamic client registration, the authorization code
// grant with PKCE through the development login and consent forms, and
// refresh tokens.
//
// Run with Node 22 (test/conformance/node_modules/.bin/node):
//   OIDC_PROVIDER_CONFIG='{"clients": [...], "access_token_ttl": 5}' node provider.mjs
// OIDC_PROVIDER_CONFIG (JSON, in the environment because it holds client
// secrets; every member optional):
//   clients           oidc-provider client metadata, pre-registered
//   access_token_ttl  seconds an access token lives (default 3600)
//   no_refresh_tokens client names (`client_name' of a registration) whose
//                     clients get no refresh token, as from a provider
//                     whose policy issues none
//   dpop_nonce        true: every token request with a DPoP proof must
//                     carry this provider's nonce (RFC 9449 §8; DPoP itself
//                     is on in oidc-provider 9 without it)
//   event_log         a file to which one JSON line is appended per
//                     authorization, token grant and registration (the
//                     grant type, the client id and the resource: never a
//                     token, code or secret)
// It listens on 127.0.0.1 at a port the kernel picks; once it accepts
// connections it prints one line `listening http://127.0.0.1:PORT`, which
// is also its issuer. Only loopback http URLs are accepted as resources.

import { createServer } from 'node:http';
import { appendFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider, { errors } from 'oidc-provider';

const config = JSON.parse(process.env.OIDC_PROVIDER_CONFIG || '{}');
const accessTokenTtl = config.access_token_ttl ?? 3600;
const noRefreshTokens = new Set(config.no_refresh_tokens ?? []);
const RESOURCE_SCOPE = 'mcp:tools';

function logEvent(event, ctx, extra = {}) {
  if (!config.event_log) return;
  const line = {
    event,
    client_id: ctx?.oidc?.client?.clientId ?? null,
    ...extra,
  };
  appendFileSync(config.event_log, `${JSON.stringify(line)}\n`);
}

// A resource indicator this provider issues tokens for: an http URL on
// the loopback (the test's MCP server, or another one for the audience test).
function loopbackResource(indicator) {
  try {
    const url = new URL(indicator);
    return url.protocol === 'http:' && url.hostname === '127.0.0.1' && url.hash === '';
  } catch {
    return false;
  }
}

// Fresh signing keys on each start: RS256 (ID tokens), ES256 (access tokens).
function signingKeys() {
  const pairs = {
    RS256: generateKeyPairSync('rsa', { modulusLength: 2048 }),
    ES256: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
  };
  return {
    keys: Object.entries(pairs).map(([alg, { privateKey }]) => ({
      ...privateKey.export({ format: 'jwk' }),
      alg,
      use: 'sig',
      kid: `${alg.toLowerCase()}-${randomBytes(4).toString('hex')}`,
    })),
  };
}

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients: config.clients ?? [],
  jwks: signingKeys(),
  cookies: { keys: [randomBytes(32).toString('hex')] },
  scopes: ['openid', 'offline_access'],
  features: {
    devInteractions: { enabled: true },
    dPoP: config.dpop_nonce
      ? { enabled: true, nonceSecret: randomBytes(32), requireNonce: () => true }
      : { enabled: true },
    clientCredentials: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async (_ctx, _client, oneOf) => oneOf,
      useGrantedResource: async () => true,
      getResourceServerInfo: async (_ctx, indicator) => {
        if (!loopbackResource(indicator)) throw new errors.InvalidTarget();
        return {
          scope: RESOURCE_SCOPE,
          audience: indicator,
          accessTokenTTL: accessTokenTtl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
  // oidc-provider's own rule (the refresh_token grant allowed, and
  // `offline_access' granted, which takes `prompt=consent'), but for the
  // client names of `no_refresh_tokens'.
  issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed('refresh_token')
    && code.scopes.has('offline_access') && !noRefreshTokens.has(client.clientName),
  pkce: { required: () => true },
  ttl: {
    AccessToken: accessTokenTtl,
    ClientCredentials: accessTokenTtl,
    RefreshToken: 86400,
  },
});

provider.on('authorization.success', (ctx) => logEvent('authorization', ctx));
provider.on('grant.success', (ctx) => logEvent('grant', ctx, {
  grant_type: ctx.oidc.params.grant_type,
  resource: ctx.oidc.params.resource ?? null,
}));
provider.on('grant.error', (ctx, error) => logEvent('grant_error', ctx, {
  grant_type: ctx.oidc.params?.grant_type ?? null,
  error: error.error ?? error.name,
}));
provider.on('registration_create.success', (ctx, client) => logEvent('registration', { oidc: { client } }));

server.on('request', provider.callback());
console.log(`listening ${issuer}`);

process.on('SIGTERM', () => process.exit(0));
