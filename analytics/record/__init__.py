"""Recording live games and playing the bots: hands step by step, through the rules engines.

:mod:`analytics.record.hand` is one hand in progress (what may come next, each step
checked by the reader and the engine), :mod:`analytics.record.journal` the
write-ahead journal, :mod:`analytics.record.table` a table of hands (filing each
finished hand and loading it into the warehouse), :mod:`analytics.record.play` the
dealer and the bots of a table played against the computer.  Nothing here knows a
rule or draws a page (docs/recording.md).
"""
