"""The 7 & 8 Poker rules engine (RULES.md section 3), its block replay and kernel.
"""
