"""The Big Two rules engine (RULES.md section 2).
"""
