"""The warehouse in SQL: its schema and migrations, the fact tables, and the read
questions of the dashboard, the reports and the commands.
"""
