"""How a GOAT score is computed; ``dispatch`` chooses the path (docs/architecture.md, "Compute paths")."""
