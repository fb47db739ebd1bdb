"""What goes beyond the three papers, built on the same engine: the race of every method on every real matrix
(:mod:`.race`) and certified best-model search (:mod:`.search`)."""
