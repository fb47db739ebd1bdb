"""What runs the reproduction, apart from the papers: a profile's configuration and its validation
(:mod:`.config`), which inputs a run has (:mod:`.completeness`), the notebooks' helpers (:mod:`.notebook`), the
static report (:mod:`.report`) and the comparison of a fresh run with the committed one (:mod:`.reproduction`).
"""
