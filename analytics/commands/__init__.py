"""``handlab`` sub-commands that live in their own modules (registered by analytics.cli)."""
