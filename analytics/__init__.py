"""handlab analytics."""
