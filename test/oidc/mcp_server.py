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

Tools: `add` (two integers) and `whoami` (the client id and the audience
of the token the call came with).

Usage: OIDC_ISSUER=http://127.0.0.1:PORT .venv-sdk2/bin/python mcp_server.py
It binds a free port on 127.0.0.1 and, once its socket listens, prints one
line `listening http://127.0.0.1:PORT/mcp` on stdout.
"""

import asyncio
import json
import os
import socket
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
    config = uvicorn.Config(app, log_level="warning")
    print(f"listening {url}", flush=True)
    await uvicorn.Server(config).serve(sockets=[listener])


if __name__ == "__main__":
    asyncio.run(serve())
