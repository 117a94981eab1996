"""How a GOAT score is computed: the compute paths (the torch chunks, the compiled per-pair
loops of ``fused``, the Gram matrix for inference), the dropout masks every path shares, and the
one module that decides which path a batch takes (``dispatch``)."""
