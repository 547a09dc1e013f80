"""The ladder: 积分 totals, the 25 titles, ratings (RULES.md Part C)."""
