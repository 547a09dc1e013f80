"""The web hall: lobby, accounts and live tables over WebSockets (docs/server.md)."""
