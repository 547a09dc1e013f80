"""Replays and post-hand reviews of finished hands, rebuilt from validated match records."""
