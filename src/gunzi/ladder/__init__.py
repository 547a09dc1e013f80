"""The ladder: 积分 totals, the 25 titles, ratings (docs/rules.md Part C)."""
