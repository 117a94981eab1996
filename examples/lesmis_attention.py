"""Train GOAT on Les Misérables, print Marius's attention when he gossips with Thenardier, and save
it as a figure (an HTML file to open in a browser).

    .venv/bin/python -m examples.lesmis_attention [OUT.html]   # from the repository root
"""

import sys

from goat_core import Goat, load_graph, views

graph = load_graph("lesmis")
# The app's fast preset: real neighbors only (padding="mask"), light dropout; trains in seconds.
goat = Goat(dim=64, neighborhood=100, lr=0.01, dropout=0.3, epochs=40, batch_size=64, negatives=1,
            padding="mask", validation_fraction=0.0, seed=0).fit(graph)

pair = goat.attention("Marius", "Thenardier")  # both sides' attention, r_s, r_t and the score
print(f"P(Marius - Thenardier) = {pair.probability:.3f}; Marius's attention towards Thenardier:")
for row in pair.to_dict()["source_attention"]:
    print(f"  {row['node']:<16} {row['weight']:.3f}")

figure = views.attention_bars(pair.source_names, pair.source_attention, pair.shared, node="Marius",
                              partner="Thenardier", padding=pair.source_padding)
out = sys.argv[1] if len(sys.argv) > 1 else "marius_thenardier.html"
figure.write_html(out, include_plotlyjs="cdn")
print(f"figure: {out}")
