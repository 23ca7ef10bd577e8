"""The junction summary: norms and cosines from the heads' Gram matrix equal the ones
computed directly from the gradients, zero rows included."""
import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from gradviz.core.probes import junction_gram, norms_and_cosines


@settings(max_examples=60, deadline=None)
@given(heads=st.integers(1, 8), size=st.integers(1, 300), seed=st.integers(0, 2**31 - 1),
       zero_rows=st.sets(st.integers(0, 7)))
def test_norms_and_cosines_match_a_direct_computation(heads, size, seed, zero_rows):
    g = torch.randn(heads, size, generator=torch.Generator().manual_seed(seed))
    for k in zero_rows:
        if k < heads:
            g[k] = 0.0       # a detached head: no gradient at the junction
    norms, cosine = norms_and_cosines(junction_gram(g).tolist(), heads)
    for i in range(heads):
        want = 0.0 if i in zero_rows else torch.linalg.vector_norm(g[i]).item()
        assert math.isclose(norms[i], want, rel_tol=1e-5)   # exact where it is zero
        for j in range(heads):
            if i in zero_rows or j in zero_rows:
                assert math.isnan(cosine[i][j])
            else:
                want = torch.nn.functional.cosine_similarity(g[i], g[j], dim=0).item()
                assert abs(cosine[i][j] - want) < 1e-5
                assert -1.0 <= cosine[i][j] <= 1.0

