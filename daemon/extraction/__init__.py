"""Extraction parts: scope cues, adoption, clause merging, the learned scorer."""
