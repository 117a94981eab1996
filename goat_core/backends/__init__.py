"""How a GOAT score is computed: ``dispatch`` decides the compute path (its docstring is the
path | when table); ``torch_chunks``, ``fused`` (the compiled per-pair loops) and ``gram`` (the
Gram matrix, for inference) compute it; ``batch`` lays out a batch's slots and padding,
``masks`` the dropout every path shares, ``logistic`` σ and the loss, ``workers`` the threads."""
