"""How a GOAT score is computed: ``dispatch`` decides the compute path (its docstring is the
path | mode | when table); ``model.Goat`` is the reference, ``fused`` the compiled CPU path (with
its Gram mode in ``gram``), ``torch_chunks`` the torch path; ``batch`` lays out a batch's slots
and padding, ``masks`` the dropout every path shares, ``logistic`` σ and the loss, ``workers``
the threads, ``ranking_kernels`` ranking's compiled negatives' draw."""
