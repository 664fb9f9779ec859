"""An MCP server (PyPI `mcp` 2.x, `.venv-sdk2`) protected by the OpenID
provider of test/oidc/provider.mjs, for test/mcp_oidc_provider_tests.erl.

It is a resource server only: it publishes its protected-resource metadata
(RFC 9728: `resource` its own URL, `authorization_servers` the issuer,
`scopes_supported` ["mcp:tools"]) and accepts a bearer token only when it is
a JWT access token (RFC 9068, `typ` at+jwt) signed by a key of the issuer's
JWKS (found through its OpenID discovery document), with `iss` the issuer,
`aud` this server's URL, `exp` in the future (no leeway) and the scope
"mcp:tools". Anything else is answered 401 with the challenge naming the
metadata.

With MCP_DPOP=on (or =nonce) it takes DPoP-bound tokens only (RFC 9449
§7): `Authorization: DPoP <token>` with one `DPoP` proof, a JWT of type
dpop+jwt signed by the public key of its `jwk` header (no private member),
whose `htm` is the request's method, `htu` this server's URL, `iat` within
60 s, `jti` not seen before, `ath` the base64url SHA-256 of the token, and
whose key's RFC 7638 thumbprint is the token's `cnf.jkt`; with =nonce the
proof must also carry this run's nonce, else 401 `use_dpop_nonce` with a
`DPoP-Nonce` (§9). A Bearer token, or a proof that fails, is answered 401
`DPoP error="invalid_token"` or `"invalid_dpop_proof"`.

Tools: `add` (two integers) and `whoami` (the client id and the audience
of the token the call came with).

Usage: OIDC_ISSUER=http://127.0.0.1:PORT [MCP_DPOP=on|nonce] .venv-sdk2/bin/python mcp_server.py
It binds a free port on 127.0.0.1 and, once its socket listens, prints one
line `listening http://127.0.0.1:PORT/mcp` on stdout.
"""

import asyncio
import base64
import collections
import hashlib
import json
import os
import secrets
import socket
import time
import urllib.request

import anyio
import jwt
import uvicorn

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer

SCOPE = "mcp:tools"
ALGORITHMS = ["ES256", "RS256", "PS256", "EdDSA"]


class JwtAccessTokenVerifier:
    """The `TokenVerifier` of the SDK for RFC 9068 JWT access tokens."""

    def __init__(self, issuer: str, audience: str) -> None:
        self.issuer = issuer
        self.audience = audience
        with urllib.request.urlopen(f"{issuer}/.well-known/openid-configuration", timeout=10) as answer:
            metadata = json.load(answer)
        if metadata.get("issuer") != issuer:
            raise SystemExit(f"the discovery document names issuer {metadata.get('issuer')!r}, not {issuer!r}")
        self.keys = jwt.PyJWKClient(metadata["jwks_uri"], timeout=10)

    def claims(self, token: str) -> dict:
        if jwt.get_unverified_header(token).get("typ", "").lower() not in ("at+jwt", "application/at+jwt"):
            raise jwt.InvalidTokenError("not a JWT access token")
        key = self.keys.get_signing_key_from_jwt(token)
        return jwt.decode(
            token,
            key,
            algorithms=ALGORITHMS,
            issuer=self.issuer,
            audience=self.audience,
            options={"require": ["exp", "iss", "aud", "client_id"]},
        )

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            claims = await anyio.to_thread.run_sync(self.claims, token)
        except (jwt.PyJWTError, ValueError):
            return None
        return AccessToken(
            token=token,
            client_id=claims["client_id"],
            scopes=str(claims.get("scope", "")).split(),
            expires_at=claims["exp"],
            resource=self.audience,
            subject=claims.get("sub"),
            claims={"iss": claims["iss"]},
        )


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


class DpopResourceServer:
    """ASGI middleware in front of the SDK's app: DPoP-bound tokens only.
    A request that passes goes on with `Authorization: Bearer <token>`, for
    the SDK's verifier (signature, issuer, audience, expiry, scope)."""

    MAX_SEEN = 10000

    def __init__(self, app, url: str, metadata_url: str, nonce_required: bool) -> None:
        self.app = app
        self.url = url
        self.metadata_url = metadata_url
        self.nonce = secrets.token_urlsafe(16) if nonce_required else None
        self.seen: collections.OrderedDict[str, None] = collections.OrderedDict()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope["path"].startswith("/.well-known/"):
            return await self.app(scope, receive, send)
        headers = list(scope["headers"])
        authorization = [v.decode("latin-1") for k, v in headers if k == b"authorization"]
        if not authorization:
            return await self.app(scope, receive, send)  # the SDK's challenge
        scheme, _, token = authorization[0].partition(" ")
        token = token.strip()
        proofs = [v.decode("latin-1") for k, v in headers if k == b"dpop"]
        refusal = self.refusal(scheme, token, proofs, scope["method"])
        if refusal is not None:
            return await self.challenge(send, *refusal)
        passed = [(k, v) for k, v in headers if k not in (b"authorization", b"dpop")]
        passed.append((b"authorization", f"Bearer {token}".encode("latin-1")))
        return await self.app(dict(scope, headers=passed), receive, send)

    def refusal(self, scheme: str, token: str, proofs: list, method: str):
        if scheme.lower() != "dpop":
            return ("invalid_token", "a DPoP-bound token is required")
        if len(proofs) != 1:
            return ("invalid_dpop_proof", "exactly one DPoP proof is required")
        proof = proofs[0]
        try:
            header = jwt.get_unverified_header(proof)
            jwk = header.get("jwk")
            if header.get("typ") != "dpop+jwt" or not isinstance(jwk, dict) or "d" in jwk:
                return ("invalid_dpop_proof", "not a DPoP proof")
            key = jwt.PyJWK(jwk, header.get("alg")).key
            claims = jwt.decode(proof, key, algorithms=ALGORITHMS, options={"verify_aud": False})
            bound = jwt.decode(token, options={"verify_signature": False}).get("cnf", {}).get("jkt")
        except (jwt.PyJWTError, ValueError, TypeError, KeyError):
            return ("invalid_dpop_proof", "the proof or the token does not decode")
        thumbprint = b64url(hashlib.sha256(json.dumps(
            {k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True).encode()).digest())
        if (claims.get("htm") != method or claims.get("htu") != self.url
                or not isinstance(claims.get("iat"), int) or abs(time.time() - claims["iat"]) > 60
                or claims.get("ath") != b64url(hashlib.sha256(token.encode("ascii")).digest())
                or not isinstance(claims.get("jti"), str) or claims["jti"] in self.seen):
            return ("invalid_dpop_proof", "htm, htu, iat, ath or jti is wrong")
        if bound != thumbprint:
            return ("invalid_token", "the token is not bound to the proof's key")
        if self.nonce is not None and claims.get("nonce") != self.nonce:
            return ("use_dpop_nonce", "a nonce is required")
        self.seen[claims["jti"]] = None
        if len(self.seen) > self.MAX_SEEN:
            self.seen.popitem(last=False)
        return None

    async def challenge(self, send, error: str, description: str) -> None:
        headers = [(b"www-authenticate",
                    f'DPoP error="{error}", error_description="{description}", '
                    f'resource_metadata="{self.metadata_url}"'.encode()),
                   (b"content-type", b"application/json")]
        if self.nonce is not None:
            headers.append((b"dpop-nonce", self.nonce.encode()))
        body = json.dumps({"error": error}).encode()
        await send({"type": "http.response.start", "status": 401, "headers": headers})
        await send({"type": "http.response.body", "body": body})


async def serve() -> None:
    issuer = os.environ["OIDC_ISSUER"]
    # IPPROTO_TCP named, not 0: asyncio turns Nagle off only on accepted
    # sockets whose proto says TCP.
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    url = f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    server = MCPServer(
        "oidc-protected",
        version="1.0.0",
        log_level="WARNING",
        token_verifier=JwtAccessTokenVerifier(issuer, url),
        auth=AuthSettings(
            issuer_url=issuer,
            resource_server_url=url,
            required_scopes=[SCOPE],
            validate_token_resource=True,
        ),
    )

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool(structured_output=False)
    def whoami() -> str:
        """The client id and audience of the caller's token."""
        token = get_access_token()
        return f"{token.client_id} {token.resource}" if token else "anonymous"

    app = server.streamable_http_app(host="127.0.0.1")
    dpop = os.environ.get("MCP_DPOP", "")
    if dpop in ("on", "nonce"):
        origin = url.removesuffix("/mcp")
        app = DpopResourceServer(app, url, f"{origin}/.well-known/oauth-protected-resource/mcp", dpop == "nonce")
    config = uvicorn.Config(app, log_level="warning")
    print(f"listening {url}", flush=True)
    await uvicorn.Server(config).serve(sockets=[listener])


if __name__ == "__main__":
    asyncio.run(serve())
