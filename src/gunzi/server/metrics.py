"""Prometheus metrics of one hall (its own registry, so several apps can live in one process)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0)


class Metrics:
    def __init__(self, node: str | None = None) -> None:
        r = self.registry = CollectorRegistry(auto_describe=True)
        if node is not None:  # target_info{node="..."}: which process of the hall this is
            r.set_target_info({"node": node})
        self.actions = Counter(
            "gunzi_actions_total", "Actions applied, by source", ["source"], registry=r
        )
        self.rejected = Counter(
            "gunzi_actions_rejected_total", "Actions refused, by reason", ["reason"], registry=r
        )
        self.duplicates = Counter(
            "gunzi_actions_duplicate_total", "Repeated client messages re-acknowledged",
            registry=r,
        )
        self.commit_seconds = Histogram(
            "gunzi_commit_seconds", "Time to commit one action and its events",
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self.action_seconds = Histogram(
            "gunzi_action_seconds",
            "From a player's action received to every frame queued (validate, commit, views)",
            buckets=LATENCY_BUCKETS, registry=r,
        )
        self.bot_seconds = Histogram(
            "gunzi_bot_seconds", "Time a bot took to choose", buckets=LATENCY_BUCKETS, registry=r
        )
        self.bot_batch = Histogram(
            "gunzi_bot_batch_size", "Learned-bot decisions scored together in one batch",
            buckets=(1, 2, 4, 8, 16, 32, 64, 128), registry=r,
        )
        self.tables = Gauge("gunzi_tables", "Live tables, by status", ["status"], registry=r)
        self.sockets = Gauge("gunzi_websockets", "Open WebSockets", registry=r)
        self.ws_messages = Counter(
            "gunzi_ws_messages_total", "Client WebSocket messages, by type", ["type"], registry=r
        )
        self.ws_closed = Counter(
            "gunzi_ws_closed_total", "WebSockets closed by the server, by code", ["code"],
            registry=r,
        )
        self.frames = Counter("gunzi_ws_frames_total", "Frames sent to clients", registry=r)
        self.timeouts = Counter(
            "gunzi_clock_timeouts_total", "Turn clocks that ran out", registry=r
        )
        self.logins = Counter(
            "gunzi_logins_total", "Login attempts, by outcome", ["outcome"], registry=r
        )
        self.restored = Counter(
            "gunzi_tables_restored_total", "Tables rebuilt from the database at startup",
            registry=r,
        )

        self.leases = Gauge("gunzi_leases", "Table leases this process holds", registry=r)
        self.renew_failures = Counter(
            "gunzi_lease_renew_failures_total", "Lease renewal rounds that did not reach Redis",
            registry=r,
        )
        self.takeovers = Counter(
            "gunzi_tables_taken_total", "Tables this process took over (their lease was free)",
            registry=r,
        )
        self.unshared = Counter(
            "gunzi_limits_unshared_total",
            "Limit checks and counts that could not reach Redis (this process's count was the "
            "limit), by step", ["step"], registry=r,
        )
        self.lost = Counter(
            "gunzi_tables_lost_total", "Tables dropped: lease lost or a write fenced, by why",
            ["why"], registry=r,
        )

    def render(self) -> bytes:
        return generate_latest(self.registry)
