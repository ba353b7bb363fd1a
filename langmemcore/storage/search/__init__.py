"""Retrieval's reads: the channels' rankings, full text and the evidence of the best notes."""
