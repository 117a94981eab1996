"""Graphs in: the ``Graph`` and its node index, graph files of every format read and checked
(``readers`` and the format modules beside it), the bundled datasets, and the samplers that
training and evaluation draw from (neighborhoods, negatives, leak-free splits)."""
