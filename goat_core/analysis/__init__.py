"""What a fitted model says, and how it is judged: a pair's attention and its course over
training, the attribution of a score, the equations on one pair, context spread, runs side by
side, link-prediction and clustering scores, the baselines GOAT is scored beside, projections,
the case study's quiz, and the layouts, communities and pairs the views show."""
