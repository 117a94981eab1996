"""What a fitted model says, and how it is judged: attention, attribution, equations, spread, runs side by
side, link-prediction and clustering scores, baselines, projections, the quiz, layouts and picking."""
