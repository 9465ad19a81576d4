"""The Rummoli rules engine (RULES.md section 1) and the state it replays.
"""
