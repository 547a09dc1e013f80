"""The player's words for the engine's facts, in Chinese and English: card and seat names
and the engine's errors re-worded, shared by the terminal and the hall."""
